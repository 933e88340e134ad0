package dev.ballast.core.internal;

import java.util.Objects;

/** The syntax of an endpoint's labels, checked wherever an endpoint is made. Not API. */
public final class LabelSyntax {

  /** The longest label key, in characters. */
  public static final int MAX_KEY_CHARS = 128;

  /** The longest label value, in characters. */
  public static final int MAX_VALUE_CHARS = 1024;

  private LabelSyntax() {}

  /**
   * Checks one label of an endpoint: key and value syntax and bounds ({@code Endpoint} checks
   * the values of the labels it reads, priority and health, itself).
   *
   * @throws IllegalArgumentException naming the label, ending with {@code context}
   */
  public static void check(String key, String value, String context) {
    Objects.requireNonNull(key, "label key");
    Objects.requireNonNull(value, "label value");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("label key: empty (expected: a non-empty key)" + context);
    }
    if (key.length() > MAX_KEY_CHARS) {
      throw new IllegalArgumentException("label key: " + key.length() + " characters (expected: "
          + "at most " + MAX_KEY_CHARS + ")" + context);
    }
    if (value.length() > MAX_VALUE_CHARS) {
      throw new IllegalArgumentException("label " + key + ": a value of " + value.length()
          + " characters (expected: at most " + MAX_VALUE_CHARS + ")" + context);
    }
    if (key.equals("weight")) {
      throw new IllegalArgumentException(
          "label key: weight (reserved for the endpoint weight)" + context);
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.' || c == '/')) {
        throw new IllegalArgumentException(
            "label key: " + key + " (unexpected character '" + c + "')" + context);
      }
    }
    if (value.isEmpty()) {
      throw new IllegalArgumentException(
          "label " + key + ": empty value (expected: a non-empty value)" + context);
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ';' || c == ',' || c == '=' || Character.isWhitespace(c)
          || Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
          || Character.isSurrogate(c) && !pairedSurrogate(value, i)) {
        // invisible ones (DEL, a zero-width space, a byte-order mark) are named by code point
        throw new IllegalArgumentException("label " + key + ": " + value + " (unexpected "
            + (c > ' ' && c < 0x7f ? "character '" + c + "'" : String.format("U+%04X", (int) c))
            + ")" + context);
      }
    }
  }

  private static boolean pairedSurrogate(String s, int i) {
    char c = s.charAt(i);
    return Character.isHighSurrogate(c)
        ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
        : i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }
}

package dev.ballast.core.config;

import dev.ballast.core.internal.EndpointText;
import java.util.Locale;

/**
 * How the text of a value is read. Numbers, durations, sizes and names are printable ASCII:
 * Java's number parsers take the digits of every script ({@code "\u0661\u0660s"} would read as
 * 10 s, full-width digits likewise), and {@link String#trim()} drops control characters (a
 * trailing NUL) instead of refusing them. No value holds a control character other than a tab.
 * A refusal names the character by code point, with control characters shown escaped.
 */
final class ValueText {

  private ValueText() {}

  /**
   * Returns the text with the spaces and tabs around it trimmed.
   *
   * @throws IllegalArgumentException if it holds a character outside printable ASCII
   */
  static String readable(String s, String expected) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c > '~' && !Character.isISOControl(c)) {
        throw refused(s, expected, String.format(Locale.ROOT, "U+%04X at index %d is not ASCII",
            (int) c, i));
      }
    }
    return EndpointText.trimBlanks(noControl(s, expected));
  }

  /**
   * Returns the text as it is.
   *
   * @throws IllegalArgumentException if it holds a control character other than a tab
   */
  static String noControl(String s, String expected) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isISOControl(c) && c != '\t') {
        throw refused(s, expected, String.format(Locale.ROOT,
            "control character U+%04X at index %d", (int) c, i));
      }
    }
    return s;
  }

  private static IllegalArgumentException refused(String s, String expected, String why) {
    StringBuilder shown = new StringBuilder();
    for (char c : s.toCharArray()) {
      shown.append(Character.isISOControl(c)
          ? String.format(Locale.ROOT, "\\u%04x", (int) c) : String.valueOf(c));
    }
    return new IllegalArgumentException(shown + " (expected: " + expected + "; " + why + ")");
  }
}

package dev.ballast.core.internal;

/**
 * The blanks and invisible characters of an endpoint's textual form: only ASCII spaces and tabs
 * are trimmed (line ends too between the items of a list); any other blank (U+2028, U+3000...),
 * control or format character is an error named by its code point; messages quote at most 200
 * characters of the text.
 */
public final class EndpointText {

  private EndpointText() {}

  /** Trims ASCII spaces and tabs only: other blanks (U+2028, U+3000...) are errors, not space. */
  public static String trimBlanks(String s) {
    int from = 0;
    int to = s.length();
    while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
      from++;
    }
    while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
      to--;
    }
    return s.substring(from, to);
  }

  /** Trims ASCII spaces, tabs and line ends (CR, LF) only. */
  public static String trimLines(String s) {
    int from = 0;
    int to = s.length();
    while (from < to && " \t\r\n".indexOf(s.charAt(from)) >= 0) {
      from++;
    }
    while (to > from && " \t\r\n".indexOf(s.charAt(to - 1)) >= 0) {
      to--;
    }
    return s.substring(from, to);
  }

  /** Returns the index of the first control, format or blank character but space, or -1. */
  public static int invisible(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != ' ' && (Character.isISOControl(c) || Character.isWhitespace(c)
          || Character.isSpaceChar(c) || Character.getType(c) == Character.FORMAT)) {
        return i;
      }
    }
    return -1;
  }

  /** Names a character by its code point, e.g. {@code U+2028}. */
  public static String codePoint(char c) {
    return String.format("U+%04X", (int) c);
  }

  /** The text in quotes, cut to its first 200 characters: a message stays readable. */
  public static String quote(String text) {
    return text.length() <= 200 ? "\"" + text + "\""
        : "\"" + text.substring(0, 200) + "...\" (" + text.length() + " characters)";
  }

  /**
   * Reads 1-10 ASCII digits; returns {@link Long#MIN_VALUE} for anything else (a sign, other
   * scripts' digits, which {@link Integer#parseInt} would read, or more than 10 digits).
   */
  public static long asciiInteger(String text) {
    if (text.isEmpty() || text.length() > 10) {
      return Long.MIN_VALUE;
    }
    long v = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return Long.MIN_VALUE;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

}

package dev.ballast.sim;

import java.util.Locale;

/** Parses and prints durations such as {@code 167ms}, {@code 2s}, {@code 500us}, {@code 1m}. */
public final class Durations {

  private Durations() {}

  /**
   * Parses a duration to nanoseconds: a decimal number followed by {@code ns}, {@code us},
   * {@code ms}, {@code s} or {@code m}.
   *
   * @throws IllegalArgumentException naming the text and the expected form
   */
  public static long parseNanos(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    String[] units = {"ns", "us", "ms", "s", "m"};
    double[] scale = {1, 1e3, 1e6, 1e9, 60e9};
    for (int i = 0; i < units.length; i++) {
      if (t.endsWith(units[i])) {
        String number = t.substring(0, t.length() - units[i].length());
        // "ms" also ends with "s": only accept when what is left is a number.
        try {
          double v = Double.parseDouble(number);
          if (v < 0 || Double.isNaN(v) || Double.isInfinite(v)) {
            break;
          }
          return Math.round(v * scale[i]);
        } catch (NumberFormatException e) {
          // try the next unit
        }
      }
    }
    throw new IllegalArgumentException(
        "duration: " + text + " (expected: a number >= 0 with a unit ns, us, ms, s or m, e.g. 167ms)");
  }

  /** Formats nanoseconds compactly: {@code 167ms}, {@code 2s}, {@code 1.5s}, {@code 500us}. */
  public static String format(long nanos) {
    if (nanos != 0 && nanos % 1_000_000_000L == 0) {
      return nanos / 1_000_000_000L + "s";
    }
    if (nanos >= 1_000_000_000L) {
      return trim(nanos / 1e9) + "s";
    }
    if (nanos % 1_000_000L == 0) {
      return nanos / 1_000_000L + "ms";
    }
    if (nanos >= 1_000_000L) {
      return trim(nanos / 1e6) + "ms";
    }
    if (nanos % 1_000L == 0) {
      return nanos / 1_000L + "us";
    }
    return nanos + "ns";
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, "%.3f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}

package dev.ballast.sim;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command-line conventions shared by {@code ./ballast simulate}, {@code demo} and {@code
 * compare}.
 */
public final class Flags {

  private Flags() {}

  /** Parses a command's flags. */
  @FunctionalInterface
  public interface Parser<T> {
    /**
     * Returns the parsed settings.
     *
     * @throws IllegalArgumentException naming the bad flag
     */
    T parse() throws IOException;
  }

  /**
   * Returns what {@code parser} makes of a command's flags, or, for a bad flag, says why on
   * standard error, points at {@code ./ballast <command> --help} and exits with status 2.
   */
  public static <T> T parseOrExit(String command, Parser<T> parser) throws IOException {
    try {
      return parser.parse();
    } catch (IllegalArgumentException e) {
      System.err.println("ballast " + command + ": " + e.getMessage());
      System.err.println("(./ballast " + command + " --help lists the flags)");
      System.exit(2);
      throw e; // not reached
    }
  }

  /** Receives one flag and its value ({@code null} for a switch). */
  @FunctionalInterface
  public interface Handler {
    /** Applies one flag. */
    void accept(String flag, String value) throws IOException;
  }

  /**
   * Walks {@code --name value} and {@code --name=value} flags in order; the names in {@code
   * switches} take no value and reach the handler with {@code null}.
   *
   * @throws IllegalArgumentException for an argument that is not a flag, or a flag without value
   */
  public static void forEach(List<String> args, Set<String> switches, Handler handler)
      throws IOException {
    for (int i = 0; i < args.size(); i++) {
      String flag = args.get(i);
      String value = null;
      int eq = flag.indexOf('=');
      if (flag.startsWith("--") && eq > 0) {
        value = flag.substring(eq + 1);
        flag = flag.substring(0, eq);
      }
      if (switches.contains(flag)) {
        handler.accept(flag, null);
        continue;
      }
      if (!flag.startsWith("--")) {
        throw new IllegalArgumentException(
            "argument: " + flag + " (expected: a flag such as --rate)");
      }
      if (value == null) {
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException(flag + ": missing value");
        }
        value = args.get(++i);
      }
      handler.accept(flag, value);
    }
  }

  /** Parses {@code --deadline}: {@code enforce} is true, {@code measure} false. */
  public static boolean enforceDeadline(String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "enforce":
        return true;
      case "measure":
        return false;
      default:
        throw new IllegalArgumentException(
            "--deadline: " + value + " (expected: enforce or measure)");
    }
  }

  /**
   * Parses an integer flag value of at least {@code min}.
   *
   * @throws IllegalArgumentException naming the flag and what it expects
   */
  public static int parseInt(String flag, String value, int min) {
    long v = parseLong(flag, value);
    if (v < min || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(flag + ": " + value + " (expected: an integer >= " + min + ")");
    }
    return (int) v;
  }

  /** Parses a long flag value, naming the flag when it is not one. */
  public static long parseLong(String flag, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": " + value + " (expected: an integer)", e);
    }
  }

  /** Parses a number flag value, naming the flag when it is not one. */
  public static double parseDouble(String flag, String value) {
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": " + value + " (expected: a number)", e);
    }
  }

  /** Returns a number as flags and reports write it: {@code 1000}, {@code 2.5}. */
  public static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}

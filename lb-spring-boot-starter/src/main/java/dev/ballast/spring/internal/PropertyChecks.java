package dev.ballast.spring.internal;

import dev.ballast.spring.InvalidBallastPropertyException;
import java.time.Duration;
import java.util.Locale;
import java.util.StringJoiner;
import org.springframework.util.unit.DataSize;

/**
 * Checks of property values under one prefix; each failed check throws an {@link
 * InvalidBallastPropertyException} naming the full property and the expected form.
 */
public final class PropertyChecks {

  private static final String DURATION_EXAMPLE = "e.g. 250ms, 2s or 1m";

  private final String prefix;

  /** Creates checks for properties under the prefix, e.g. {@code ballast.clients.orders}. */
  public PropertyChecks(String prefix) {
    this.prefix = prefix;
  }

  /** Returns the exception for a property under the prefix. */
  public InvalidBallastPropertyException invalid(
      String property, Object value, String reason, String expected) {
    return new InvalidBallastPropertyException(prefix + "." + property, value, reason, expected);
  }

  /** Returns the value if it is not blank. */
  public String notBlank(String property, String value, String expected) {
    if (value == null || value.isBlank()) {
      throw invalid(property, value, "empty", expected);
    }
    return value;
  }

  /** Returns the duration if it is given and above zero. */
  public Duration positive(String property, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw invalid(property, value == null ? null : format(value),
          value == null ? "empty" : "not positive", "a positive duration, " + DURATION_EXAMPLE);
    }
    return value;
  }

  /** Returns the duration if it is given and not below zero. */
  public Duration notNegative(String property, Duration value) {
    if (value == null || value.isNegative()) {
      throw invalid(property, value == null ? null : format(value),
          value == null ? "empty" : "negative", "a duration >= 0, " + DURATION_EXAMPLE);
    }
    return value;
  }

  /** Returns the number if it is at least {@code min}. */
  public int atLeast(String property, int value, int min) {
    if (value < min) {
      throw invalid(property, value, "below " + min, "an integer >= " + min);
    }
    return value;
  }

  /** Returns a share in 0-1, e.g. a success rate. */
  public double share(String property, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw invalid(property, value, "out of range", "a number in 0-1, e.g. 0.5");
    }
    return value;
  }

  /** Returns a size in bytes if it is given, at least {@code min} bytes and at most 2 GB. */
  public int bytes(String property, DataSize value, int min) {
    if (value == null || value.toBytes() < min || value.toBytes() > Integer.MAX_VALUE) {
      throw invalid(property, value == null ? null : value.toString(),
          value == null ? "empty" : "out of range",
          "a size of " + min + "B to 2GB, e.g. 64KB or 16MB");
    }
    return (int) value.toBytes();
  }

  /**
   * Returns the constant named by the value, matched case-insensitively with {@code -} and
   * {@code _} alike.
   */
  public <E extends Enum<E>> E oneOf(String property, String value, Class<E> type) {
    StringJoiner names = new StringJoiner(", ", "one of ", "");
    E found = null;
    String wanted = value == null ? "" : value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (E e : type.getEnumConstants()) {
      names.add(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
      if (e.name().equals(wanted)) {
        found = e;
      }
    }
    if (found == null) {
      throw invalid(property, value, value == null || value.isBlank() ? "empty" : "unknown value",
          names.toString());
    }
    return found;
  }

  /** Returns what is wrong with a label key, or {@code null} if nothing (lb-core's rules). */
  public static String labelKeyProblem(String key) {
    if (key == null || key.isEmpty()) {
      return "empty label key";
    }
    if (key.equals("weight")) {
      return "label key weight is reserved for the endpoint weight";
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.' || c == '/')) {
        return "label key " + key + " has unexpected character '" + c + "'";
      }
    }
    return null;
  }

  /** Returns what is wrong with a label value, or {@code null} if nothing (lb-core's rules). */
  public static String labelValueProblem(String value) {
    if (value == null || value.isEmpty()) {
      return "empty label value";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ';' || c == ',' || c == '=' || Character.isWhitespace(c)) {
        return "label value " + value + " has unexpected character '" + c + "'";
      }
    }
    return null;
  }

  /** Formats a duration the way properties write it, e.g. {@code -5s} or {@code 250ms}. */
  public static String format(Duration d) {
    long millis = d.toMillis();
    if (d.getNano() % 1_000_000 != 0) {
      return d.toNanos() + "ns";
    }
    if (millis % 1000 != 0) {
      return millis + "ms";
    }
    return (millis / 1000) + "s";
  }
}

package dev.ballast.grpc.internal;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Reads fields of a parsed service-config JSON object ({@code Map<String, ?>} holding Strings,
 * Doubles, Booleans, Lists and Maps). Every failure is an {@link IllegalArgumentException} whose
 * message names the field and says what was expected.
 */
final class JsonFields {

  private JsonFields() {}

  /** The deepest nesting of objects and lists below a config's own fields. */
  static final int MAX_DEPTH = 16;

  /**
   * Rejects a config nested deeper than {@value #MAX_DEPTH} (a service config is outside data),
   * walking it without recursion; the message names the top-level field.
   */
  static void checkDepth(Map<String, ?> json) {
    java.util.ArrayDeque<Object> values = new java.util.ArrayDeque<>();
    java.util.ArrayDeque<Integer> depths = new java.util.ArrayDeque<>();
    for (Map.Entry<String, ?> field : json.entrySet()) {
      values.push(field.getValue() == null ? "" : field.getValue());
      depths.push(0);
      while (!values.isEmpty()) {
        Object v = values.pop();
        int depth = depths.pop();
        if (!(v instanceof Map || v instanceof List)) {
          continue;
        }
        if (depth + 1 > MAX_DEPTH) {
          values.clear();
          throw new IllegalArgumentException(field.getKey() + ": nested more than " + MAX_DEPTH
              + " deep (expected: at most " + MAX_DEPTH + ")");
        }
        for (Object child : v instanceof Map ? ((Map<?, ?>) v).values() : (List<?>) v) {
          if (child instanceof Map || child instanceof List) {
            values.push(child);
            depths.push(depth + 1);
          }
        }
      }
    }
  }

  /** The longest duration string read: 19 digits of nanoseconds fit with room to spare. */
  static final int MAX_DURATION_CHARS = 64;

  /**
   * Rejects keys outside {@code allowed}, so a misspelt field is not silently ignored; the
   * message names the field, the caller names the policy.
   */
  static void checkKeys(Map<String, ?> json, Set<String> allowed) {
    for (String key : json.keySet()) {
      if (!allowed.contains(key)) {
        throw new IllegalArgumentException("unknown field '" + key + "' (expected: "
            + (allowed.isEmpty() ? "no fields" : "one of " + new java.util.TreeSet<>(allowed))
            + ")");
      }
    }
  }

  /** Returns a string field, or null if absent. */
  static String string(String field, Map<String, ?> json) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String)) {
      throw new IllegalArgumentException(field + ": " + show(v) + " (expected: a string)");
    }
    return (String) v;
  }

  /** Returns a positive integer field, or null if absent. */
  static Integer positiveInt(String field, Map<String, ?> json) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Number)) {
      throw new IllegalArgumentException(field + ": " + show(v) + " (expected: an integer > 0)");
    }
    double d = ((Number) v).doubleValue();
    if (d != Math.rint(d) || d < 1 || d > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(field + ": " + show(v)
          + " (expected: an integer in 1-" + Integer.MAX_VALUE + ")");
    }
    return (int) d;
  }

  /** Returns an integer field from {@code min} to {@code max}, or null if absent. */
  static Integer intIn(String field, Map<String, ?> json, int min, int max) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    String expected = " (expected: an integer from " + min + " to " + max + ")";
    if (!(v instanceof Number)) {
      throw new IllegalArgumentException(field + ": " + show(v) + expected);
    }
    double d = ((Number) v).doubleValue();
    if (d != Math.rint(d) || d < min || d > max) {
      throw new IllegalArgumentException(field + ": " + show(v) + expected);
    }
    return (int) d;
  }

  /** Returns a number field of at least {@code min} (and above it, if {@code open}), or null. */
  static Double number(String field, Map<String, ?> json, double min, boolean open) {
    return number(field, json, min, open, Double.POSITIVE_INFINITY);
  }

  /**
   * Returns a number field of at least {@code min} (and above it, if {@code open}) and at most
   * {@code max}, or null.
   */
  static Double number(String field, Map<String, ?> json, double min, boolean open,
      double max) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    String expected = " (expected: a number " + (open ? "> " : ">= ") + min
        + (max < Double.POSITIVE_INFINITY ? " and <= " + max : "") + ")";
    if (!(v instanceof Number)) {
      throw new IllegalArgumentException(field + ": " + show(v) + expected);
    }
    double d = ((Number) v).doubleValue();
    if (Double.isNaN(d) || Double.isInfinite(d) || d < min || (open && d == min) || d > max) {
      throw new IllegalArgumentException(field + ": " + show(v) + expected);
    }
    return d;
  }

  /** Returns a list field, or null if absent. */
  static List<?> list(String field, Map<String, ?> json) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof List)) {
      throw new IllegalArgumentException(field + ": " + show(v) + " (expected: a list)");
    }
    return (List<?>) v;
  }

  /** Returns an object field, or null if absent. */
  @SuppressWarnings("unchecked")
  static Map<String, ?> object(String field, Map<String, ?> json) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException(field + ": " + show(v) + " (expected: an object)");
    }
    return (Map<String, ?>) v;
  }

  /**
   * Returns a duration field written as a string: a decimal number and a unit, one of {@code
   * ns, us, ms, s, m, h} ({@code "10s"}, {@code "30ms"}, {@code "0.5s"}, as in gRPC service
   * configs), or null if absent. At most {@value #MAX_DURATION_CHARS} characters and {@link
   * Long#MAX_VALUE} nanoseconds (about 292 years): longer text is refused before it is parsed.
   */
  static Duration duration(String field, Map<String, ?> json) {
    Object v = json.get(field);
    if (v == null) {
      return null;
    }
    String expected = " (expected: a duration string such as \"10s\" or \"30ms\")";
    if (!(v instanceof String)) {
      throw new IllegalArgumentException(field + ": " + show(v) + expected);
    }
    if (((String) v).length() > MAX_DURATION_CHARS) {
      throw new IllegalArgumentException(field + ": a string of " + ((String) v).length()
          + " characters (expected: at most " + MAX_DURATION_CHARS + ", e.g. \"10s\")");
    }
    String text = ((String) v).trim().toLowerCase(Locale.ROOT);
    int unitAt = text.length();
    while (unitAt > 0 && Character.isLetter(text.charAt(unitAt - 1))) {
      unitAt--;
    }
    String unit = text.substring(unitAt);
    long nanosPerUnit;
    switch (unit) {
      case "ns":
        nanosPerUnit = 1L;
        break;
      case "us":
        nanosPerUnit = 1_000L;
        break;
      case "ms":
        nanosPerUnit = 1_000_000L;
        break;
      case "s":
        nanosPerUnit = 1_000_000_000L;
        break;
      case "m":
        nanosPerUnit = 60_000_000_000L;
        break;
      case "h":
        nanosPerUnit = 3_600_000_000_000L;
        break;
      default:
        throw new IllegalArgumentException(field + ": \"" + v + "\"" + expected);
    }
    BigDecimal amount;
    try {
      amount = new BigDecimal(text.substring(0, unitAt));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(field + ": \"" + v + "\"" + expected, e);
    }
    BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit));
    if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(field + ": \"" + v + "\" (expected: at most 292 years)");
    }
    if (nanos.signum() < 0) {
      throw new IllegalArgumentException(field + ": \"" + v + "\" (expected: >= 0)");
    }
    return Duration.ofNanos(nanos.longValue());
  }

  /**
   * Returns a JSON value as a person wrote it: gRPC's parser reads every number as a double, so
   * a whole number is shown without {@code .0}.
   */
  static String show(Object v) {
    String s = show(v, 0);
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  // at most 4 levels shown: what a message quotes stays short whatever the value
  private static String show(Object v, int depth) {
    if (v instanceof Double) {
      double d = (Double) v;
      if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        return Long.toString((long) d);
      }
    } else if (v instanceof List) {
      if (depth >= 4) {
        return "[...]";
      }
      StringJoiner j = new StringJoiner(", ", "[", "]");
      for (Object e : (List<?>) v) {
        j.add(show(e, depth + 1));
      }
      return j.toString();
    } else if (v instanceof Map) {
      if (depth >= 4) {
        return "{...}";
      }
      StringJoiner j = new StringJoiner(", ", "{", "}");
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        j.add(e.getKey() + "=" + show(e.getValue(), depth + 1));
      }
      return j.toString();
    }
    return String.valueOf(v);
  }
}

package dev.ballast.core.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The type of an option's value: how it is read from what a front end hands over (a JSON value
 * from a gRPC service config, a string from a Spring property, or the typed value itself) and
 * written back (as a service config's JSON value). Every failure is an {@link
 * IllegalArgumentException} saying what was expected; the {@link OptionSet} names the option.
 *
 * @param <T> the value's Java type
 */
public abstract class ValueType<T> {

  /** The longest text read as a number or a duration, refused before it is parsed. */
  static final int MAX_CHARS = 64;

  private final String expected;

  private ValueType(String expected) {
    this.expected = expected;
  }

  /** Returns what a value must look like, e.g. {@code a duration such as 10s or 250ms}. */
  public final String expected() {
    return expected;
  }

  /**
   * Reads a raw value: the typed value, a JSON value or text.
   *
   * @throws IllegalArgumentException saying what was given and what was expected
   */
  public final T parse(Object raw) {
    return read(java.util.Objects.requireNonNull(raw, "raw"));
  }

  /** Writes a value as JSON (String, Double, Boolean, List or Map), as a service config would. */
  public final Object toJson(T value) {
    return write(java.util.Objects.requireNonNull(value, "value"));
  }

  /** Reads a raw value; null never reaches here. */
  abstract T read(Object raw);

  /** Writes a value as JSON: String, Double, Boolean, List or Map; by default as it is. */
  Object write(T value) {
    return value;
  }

  final IllegalArgumentException bad(Object raw) {
    return new IllegalArgumentException(show(raw) + " (expected: " + expected + ")");
  }

  /** Returns text read as a number, a duration or a name ({@link ValueText#readable}). */
  final String text(Object raw) {
    if (!(raw instanceof String) || ((String) raw).length() > MAX_CHARS) {
      throw bad(raw);
    }
    return ValueText.readable((String) raw, expected);
  }

  /**
   * Durations: a decimal number and a unit, one of {@code ns, us, ms, s, m, h, d} ({@code 10s},
   * {@code 0.5s}, as gRPC service configs write them), or ISO-8601 ({@code PT10S}); at most
   * {@link Long#MAX_VALUE} nanoseconds. A bare number is refused: its unit would be a guess.
   */
  public static final ValueType<Duration> DURATION = new ValueType<>(
      "a duration such as 10s, 250ms or 1.5m") {
    @Override
    Duration read(Object raw) {
      if (raw instanceof Duration) {
        return (Duration) raw;
      }
      String t = text(raw).toLowerCase(Locale.ROOT);
      if (t.startsWith("pt") || t.startsWith("-pt") || t.startsWith("p")) {
        try {
          return Duration.parse(t);
        } catch (DateTimeParseException e) {
          throw bad(raw);
        }
      }
      int unitAt = t.length();
      while (unitAt > 0 && Character.isLetter(t.charAt(unitAt - 1))) {
        unitAt--;
      }
      long nanosPerUnit = switch (t.substring(unitAt)) {
        case "ns" -> 1L;
        case "us" -> 1_000L;
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        case "h" -> 3_600_000_000_000L;
        case "d" -> 86_400_000_000_000L;
        default -> throw bad(raw);
      };
      BigDecimal nanos;
      try {
        nanos = new BigDecimal(t.substring(0, unitAt).trim())
            .multiply(BigDecimal.valueOf(nanosPerUnit));
      } catch (NumberFormatException e) {
        throw bad(raw);
      }
      if (nanos.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
        throw new IllegalArgumentException(show(raw) + " (expected: at most 292 years)");
      }
      return Duration.ofNanos(nanos.longValue());
    }

    @Override
    Object write(Duration d) {
      return format(d);
    }
  };

  /** Integers: a JSON number without a fraction, or its text. */
  public static final ValueType<Integer> INT = new ValueType<>("an integer") {
    @Override
    Integer read(Object raw) {
      double d = number(this, raw);
      if (d != Math.rint(d) || d < Integer.MIN_VALUE || d > Integer.MAX_VALUE) {
        throw bad(raw);
      }
      return (int) d;
    }

    @Override
    Object write(Integer value) {
      return value.doubleValue();
    }
  };

  /** Numbers: a finite JSON number, or its text. */
  public static final ValueType<Double> DOUBLE = new ValueType<>("a number") {
    @Override
    Double read(Object raw) {
      double d = number(this, raw);
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw bad(raw);
      }
      return d;
    }
  };

  /** Booleans: {@code true} or {@code false}, as JSON or text. */
  public static final ValueType<Boolean> BOOLEAN = new ValueType<>("true or false") {
    @Override
    Boolean read(Object raw) {
      if (raw instanceof Boolean) {
        return (Boolean) raw;
      }
      String t = text(raw);
      if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
        return Boolean.parseBoolean(t);
      }
      throw bad(raw);
    }
  };

  /** Text, taken as given (empty text is null: the option's default). */
  public static final ValueType<String> STRING = new ValueType<>("a string") {
    @Override
    String read(Object raw) {
      if (!(raw instanceof String)) {
        throw bad(raw);
      }
      return ((String) raw).isEmpty() ? null : ValueText.noControl((String) raw, expected());
    }
  };

  /**
   * Sizes in bytes: a JSON number, or text with a unit {@code B, KB, MB, GB} (powers of 1024, as
   * Spring's {@code DataSize}), e.g. {@code 16MB}; at most 2 GB.
   */
  public static final ValueType<Integer> BYTES = new ValueType<>(
      "a size such as 64KB or 16MB") {
    @Override
    Integer read(Object raw) {
      long bytes;
      if (raw instanceof Number) {
        double d = ((Number) raw).doubleValue();
        if (d != Math.rint(d)) {
          throw bad(raw);
        }
        bytes = (long) d;
      } else {
        String t = text(raw).toUpperCase(Locale.ROOT);
        int unitAt = t.length();
        while (unitAt > 0 && Character.isLetter(t.charAt(unitAt - 1))) {
          unitAt--;
        }
        long unit = switch (t.substring(unitAt)) {
          case "", "B" -> 1L;
          case "KB" -> 1L << 10;
          case "MB" -> 1L << 20;
          case "GB" -> 1L << 30;
          default -> throw bad(raw);
        };
        try {
          bytes = Math.multiplyExact(Long.parseLong(t.substring(0, unitAt).trim()), unit);
        } catch (NumberFormatException | ArithmeticException e) {
          throw bad(raw);
        }
      }
      if (bytes < Integer.MIN_VALUE || bytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(show(raw) + " (expected: at most 2GB)");
      }
      return (int) bytes;
    }

    @Override
    Object write(Integer value) {
      return value.doubleValue();
    }
  };

  /**
   * Lists of strings: a JSON list, or comma-separated text ({@code zone,version}).
   */
  public static final ValueType<List<String>> STRINGS = new ValueType<>(
      "a list of strings such as a,b") {
    @Override
    List<String> read(Object raw) {
      List<String> out = new ArrayList<>();
      if (raw instanceof String) {
        for (String s : ValueText.noControl((String) raw, expected()).split(",")) {
          if (!s.isBlank()) {
            out.add(s.trim());
          }
        }
        return List.copyOf(out);
      }
      if (!(raw instanceof List)) {
        throw bad(raw);
      }
      for (Object o : (List<?>) raw) {
        if (!(o instanceof String)) {
          throw bad(raw);
        }
        out.add(ValueText.noControl((String) o, expected()));
      }
      return List.copyOf(out);
    }
  };

  /**
   * Label-key sets: a list whose entries are lists of keys ({@code [["zone"], ["zone",
   * "version"]]}, as JSON) or comma-separated keys ({@code zone,version}, as a property).
   */
  public static final ValueType<List<List<String>>> KEY_SETS = new ValueType<>(
      "a list of label-key lists such as [[zone], [zone, version]]") {
    @Override
    List<List<String>> read(Object raw) {
      if (!(raw instanceof List)) {
        throw bad(raw);
      }
      List<List<String>> out = new ArrayList<>();
      for (Object o : (List<?>) raw) {
        List<String> keys = o instanceof String s
            ? List.of(s.split(",", -1)).stream().map(String::trim).toList()
            : STRINGS.read(o);
        out.add(keys);
      }
      return List.copyOf(out);
    }
  };

  /** Maps of strings to strings: a JSON object. */
  public static final ValueType<Map<String, String>> STRING_MAP = new ValueType<>(
      "an object of strings such as {version: v1}") {
    @Override
    Map<String, String> read(Object raw) {
      if (!(raw instanceof Map)) {
        throw bad(raw);
      }
      Map<String, String> out = new TreeMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
        if (!(e.getValue() instanceof String)) {
          throw bad(raw);
        }
        out.put(String.valueOf(e.getKey()),
            ValueText.noControl((String) e.getValue(), expected()));
      }
      return out;
    }
  };

  /**
   * A value named by one of a fixed set of names ({@link dev.ballast.core.Algorithm}, {@link
   * dev.ballast.core.KeyHash}, ...): matched with case, {@code -} and {@code _} ignored; an
   * unknown one is refused naming the nearest.
   *
   * @param values the values
   * @param id the canonical name of a value, e.g. {@code p2c_peak_ewma}
   */
  public static <T> ValueType<T> named(List<T> values, Function<T, String> id) {
    List<String> names = new ArrayList<>();
    values.forEach(v -> names.add(id.apply(v)));
    return new ValueType<>("one of " + String.join(", ", names)) {
      @Override
      T read(Object raw) {
        String t = text(raw);
        for (T v : values) {
          if (Names.same(id.apply(v), t)) {
            return v;
          }
        }
        String near = Names.nearest(t, names);
        throw new IllegalArgumentException(show(raw) + " ("
            + (near == null ? "" : "did you mean " + near + "? ") + "expected: " + expected()
            + ")");
      }

      @Override
      Object write(T value) {
        return id.apply(value);
      }
    };
  }

  /**
   * Returns a type read by a function of the raw value (text, JSON or typed), which throws an
   * {@link IllegalArgumentException} whose message says what was expected.
   *
   * @param expected what a value looks like, for messages
   * @param write writes a value as JSON
   */
  public static <T> ValueType<T> of(String expected, Function<Object, T> read,
      Function<T, Object> write) {
    return new ValueType<>(expected) {
      @Override
      T read(Object raw) {
        return read.apply(raw);
      }

      @Override
      Object write(T value) {
        return write.apply(value);
      }
    };
  }

  private static double number(ValueType<?> type, Object raw) {
    if (raw instanceof Number) {
      return ((Number) raw).doubleValue();
    }
    try {
      return new BigDecimal(type.text(raw)).doubleValue();
    } catch (NumberFormatException e) {
      throw type.bad(raw);
    }
  }

  /**
   * Returns a raw value as a person wrote it: gRPC's parser reads every number as a double, so a
   * whole number is shown without {@code .0}; a duration is formatted; long text is not shown.
   */
  public static String show(Object v) {
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        return Long.toString((long) d);
      }
    } else if (v instanceof String s) {
      return s.length() > MAX_CHARS ? "a text of " + s.length() + " characters" : s;
    } else if (v instanceof Duration) {
      return format((Duration) v);
    } else if (v instanceof List) {
      java.util.StringJoiner j = new java.util.StringJoiner(", ", "[", "]");
      ((List<?>) v).forEach(e -> j.add(show(e)));
      return j.toString();
    } else if (v instanceof Map) {
      java.util.StringJoiner j = new java.util.StringJoiner(", ", "{", "}");
      ((Map<?, ?>) v).forEach((k, e) -> j.add(k + "=" + show(e)));
      return j.toString();
    }
    return String.valueOf(v);
  }

  /** Formats a duration as configs write it: {@code 10s}, {@code 250ms}, {@code 5ns}. */
  public static String format(Duration d) {
    try {
      if (d.getNano() % 1_000_000 != 0) {
        return d.toNanos() + "ns";
      }
      return d.toMillis() % 1000 != 0 ? d.toMillis() + "ms" : d.toMillis() / 1000 + "s";
    } catch (ArithmeticException tooLong) { // beyond long nanoseconds or milliseconds: exact
      return new BigDecimal(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9))
          .stripTrailingZeros().toPlainString() + "s";
    }
  }
}

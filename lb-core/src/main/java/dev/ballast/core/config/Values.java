package dev.ballast.core.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The typed values of a group of options whose config has no builder of its own (a hedging
 * policy, a retry budget): the options read and write them by name, with their defaults, and the
 * group turns them into its config once all are read.
 */
public final class Values {

  private final Map<String, Object> values = new LinkedHashMap<>();

  /** Creates empty values: every option at its default. */
  public Values() {}

  /** Returns the value of an option, or its default if it was not set. */
  @SuppressWarnings("unchecked")
  public <T> T get(String name, T defaultValue) {
    return values.containsKey(name) ? (T) values.get(name) : defaultValue;
  }

  /** Sets the value of an option. */
  public Values put(String name, Object value) {
    values.put(Objects.requireNonNull(name, "name"), value);
    return this;
  }

  /**
   * Defines an option held in {@link Values}: checked when the group's values are turned into
   * its config (by the set's check, which names a bad option by starting its message with the
   * option's name and a colon: {@code "percent: 101 (expected: 0 to 100)"}).
   *
   * @param defaultValue the default, or null for none (off); read it back with the same default
   *     ({@code values.get("percent", 5.0)})
   * @param example a good value, as text; required (documentation and tests show it)
   * @param badExample a value that is refused, by the type or by the set's check, as text;
   *     required (lb-core's and lb-netty's options: the model's tests assert every front end
   *     refuses it). Empty text is no bad value: it means the option's default
   */
  public static <T> Option<Values, Values, T> option(String name, ValueType<T> type,
      T defaultValue, Object example, Object badExample) {
    return Option.of(name, type, v -> v.get(name, defaultValue), (v, t) -> v.put(name, t),
        example, badExample);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Values v && values.equals(v.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }
}

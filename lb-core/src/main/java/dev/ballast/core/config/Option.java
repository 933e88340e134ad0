package dev.ballast.core.config;

import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One option of a config type {@code C} built by {@code B}: its canonical name, its value type,
 * how to read it from a config and how to set it on a builder (whose setter checks it and whose
 * defaults are the option's). Examples of a good and a bad value go with it, so that a test
 * generated from the model can drive every front end with them.
 *
 * @param <C> the config type
 * @param <B> its builder
 * @param <T> the value's type
 */
public final class Option<C, B, T> {

  private final String name;
  private final ValueType<T> type;
  private final Function<C, T> getter;
  private final BiConsumer<B, T> setter;
  private final Object example;
  private final Object badExample;

  private Option(String name, ValueType<T> type, Function<C, T> getter, BiConsumer<B, T> setter,
      Object example, Object badExample) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = Objects.requireNonNull(type, "type");
    this.getter = Objects.requireNonNull(getter, "getter");
    this.setter = Objects.requireNonNull(setter, "setter");
    this.example = example;
    this.badExample = Objects.requireNonNull(badExample, "badExample");
  }

  /**
   * Defines an option.
   *
   * @param name the canonical name, camelCase, dotted for a group ({@code slowStart.window})
   * @param example a good value other than the default, as text ({@code 5s}) or JSON; null when
   *     none can be written down (a file)
   * @param badExample a value of the right type that the builder refuses ({@code 0s}); required:
   *     the model's tests assert that every front end refuses it
   */
  public static <C, B, T> Option<C, B, T> of(String name, ValueType<T> type,
      Function<C, T> getter, BiConsumer<B, T> setter, Object example, Object badExample) {
    return new Option<>(name, type, getter, setter, example, badExample);
  }

  /** Returns the canonical name, e.g. {@code decayTime} or {@code slowStart.window}. */
  public String name() {
    return name;
  }

  /** Returns the value type. */
  public ValueType<T> type() {
    return type;
  }

  /** Returns the option's value in a config. */
  public T get(C config) {
    return getter.apply(config);
  }

  /**
   * Reads a raw value (text, a JSON value or a typed value) and sets it on the builder.
   *
   * @throws OptionException naming this option, for a value of the wrong form or one the
   *     builder refuses
   */
  public void set(B builder, Object raw) {
    T value;
    try {
      value = raw == null ? null : type.read(raw);
    } catch (IllegalArgumentException e) {
      throw new OptionException(name, e.getMessage(), e);
    }
    if (value == null) {
      return;
    }
    try {
      setter.accept(builder, value);
    } catch (OptionException e) {
      // a setter that names a key inside this option's value (policy.percent) keeps that name
      throw e.option().startsWith(name + ".") ? e : OptionException.of(name, raw, e);
    } catch (IllegalArgumentException e) {
      throw OptionException.of(name, raw, e);
    }
  }

  /** Returns the value written as JSON: a String, Double, Boolean, List or Map. */
  public Object write(C config) {
    T v = get(config);
    return v == null ? null : type.write(v);
  }

  /** Returns a good value other than the default, as text or JSON. */
  public Object example() {
    return example;
  }

  /** Returns a value of the right form that the builder refuses, as text or JSON. */
  public Object badExample() {
    return badExample;
  }

  @Override
  public String toString() {
    return name;
  }
}

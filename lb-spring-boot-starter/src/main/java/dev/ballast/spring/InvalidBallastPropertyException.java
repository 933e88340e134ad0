package dev.ballast.spring;

import java.util.Objects;

/**
 * A Ballast property with a value that cannot be used. Thrown while the application starts;
 * Ballast's failure analyzer turns it into a start-up report naming the property, its value,
 * what is wrong and the expected form.
 */
public class InvalidBallastPropertyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String property;
  private final String value;
  private final String reason;
  private final String expected;

  /**
   * Creates the exception.
   *
   * @param property the full property name, e.g. {@code ballast.clients.orders.endpoints[1]}
   * @param value the value as given, or {@code null} when it was empty
   * @param reason what is wrong with it
   * @param expected the form a valid value takes, with an example
   */
  public InvalidBallastPropertyException(
      String property, Object value, String reason, String expected) {
    super(property + ": " + (value == null ? "(empty)" : "\"" + value + "\"") + " is invalid: "
        + reason + " (expected: " + expected + ")");
    this.property = Objects.requireNonNull(property, "property");
    this.value = value == null ? null : String.valueOf(value);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.expected = Objects.requireNonNull(expected, "expected");
  }

  /** Returns the full property name, e.g. {@code ballast.clients.orders.endpoints[1]}. */
  public String property() {
    return property;
  }

  /** Returns the value as given, or {@code null} when it was empty. */
  public String value() {
    return value;
  }

  /** Returns what is wrong with the value. */
  public String reason() {
    return reason;
  }

  /** Returns the expected form, with an example. */
  public String expected() {
    return expected;
  }
}

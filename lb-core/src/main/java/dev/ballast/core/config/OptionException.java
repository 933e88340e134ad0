package dev.ballast.core.config;

/**
 * A configuration value or key that was refused: {@link #option()} names the option as the model
 * spells it ({@code slowStart.window}), {@link #problem()} says what is wrong with what was
 * given and what was expected, so that each front end can name the key its own way ({@code
 * ballast.clients.orders.slow-start.window}).
 */
public final class OptionException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String option;
  private final String problem;

  /** Creates the exception: the message is {@code option: problem}. */
  public OptionException(String option, String problem, Throwable cause) {
    super(option + ": " + problem, cause);
    this.option = option;
    this.problem = problem;
  }

  /**
   * Wraps a builder's refusal: its message names the setter's argument ({@code decayTime: PT0S
   * (expected: > 0)}), which becomes the problem once that name is cut.
   */
  static OptionException of(String option, IllegalArgumentException e) {
    if (e instanceof OptionException) {
      return (OptionException) e;
    }
    return cut(option, String.valueOf(e.getMessage()), e);
  }

  /**
   * Wraps a builder's refusal of a value given as {@code raw}: the value is shown as given
   * ({@code 0s}, not the builder's {@code PT0S}), followed by the builder's expectation.
   */
  static OptionException of(String option, Object raw, IllegalArgumentException e) {
    String m = String.valueOf(e.getMessage());
    int expected = m.indexOf(" (expected");
    return expected < 0 ? of(option, e)
        : new OptionException(option, ValueType.show(raw) + m.substring(expected), e);
  }

  private static OptionException cut(String option, String m, IllegalArgumentException e) {
    int colon = m.indexOf(": ");
    String problem = colon > 0 && m.indexOf(' ') > colon ? m.substring(colon + 2) : m;
    return new OptionException(option, problem, e);
  }

  /** Returns the option's canonical name, or the unknown key as given. */
  public String option() {
    return option;
  }

  /** Returns what is wrong and what was expected, e.g. {@code PT0S (expected: > 0)}. */
  public String problem() {
    return problem;
  }
}

package dev.ballast.sim;

/**
 * Backends that join during the run, cold: the backends from index {@code initial} on join the
 * balancer at {@code atNanos}, and each answers {@code coldFactor} times slower at first, the
 * factor falling linearly to 1 over {@code coldNanos} (a JIT warming up).
 *
 * @param initial how many backends are there from the start
 * @param atNanos when the others join
 * @param coldFactor how much slower a joining backend answers at first (1: not at all)
 * @param coldNanos how long until it answers at its normal latency
 */
public record ScaleOut(int initial, long atNanos, double coldFactor, long coldNanos) {

  /** Checks the fields. */
  public ScaleOut {
    if (initial < 1) {
      throw new IllegalArgumentException(
          "scale-out: " + initial + " backends at first (expected: > 0)");
    }
    if (atNanos < 0) {
      throw new IllegalArgumentException(
          "scale-out at: " + Durations.format(atNanos) + " (expected: >= 0)");
    }
    if (!(coldFactor >= 1) || Double.isInfinite(coldFactor) || coldNanos < 0) {
      throw new IllegalArgumentException("cold start: " + coldFactor + "x over "
          + Durations.format(coldNanos) + " (expected: a factor >= 1 over a duration >= 0)");
    }
  }

  /** Returns the latency factor of a joining backend {@code sinceJoin} after it joined. */
  double coldness(long sinceJoin) {
    if (sinceJoin >= coldNanos) {
      return 1;
    }
    return 1 + (coldFactor - 1) * (1 - (double) sinceJoin / coldNanos);
  }

  @Override
  public String toString() {
    return "backends from " + initial + " join at " + Durations.format(atNanos)
        + (coldFactor > 1 ? ", " + Flags.number(coldFactor) + "x slower at first, normal after "
            + Durations.format(coldNanos) : "");
  }
}

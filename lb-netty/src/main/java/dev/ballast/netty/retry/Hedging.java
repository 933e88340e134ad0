package dev.ballast.netty.retry;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.internal.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * Backup requests ("The Tail at Scale", Dean and Barroso, CACM 2013; Finagle's {@code
 * BackupRequestFilter}): when an idempotent call's first attempt has not answered after a delay,
 * a second attempt goes to a different endpoint; the first answer that is a success wins, and
 * the other attempt is cancelled (its late answer still feeds the balancer). The delay is fixed,
 * or a percentile of the client's own recent call latencies; a budget bounds the extra load to a
 * share of the calls (default 2%, over a 10 s window), so that hedging cannot double the load on
 * a slow service. At most one hedge per call; hedges are not retries and do not count against
 * {@link RetryPolicy#maxAttempts()}.
 *
 * <p>Immutable. Metrics: {@code ballast.client.hedges} (sent) and {@code
 * ballast.client.hedges.won}; {@link BallastClient#callStats()}.
 */
public final class Hedging {

  private static final double DEFAULT_BUDGET = 0.02;

  private final long delayNanos; // fixed delay, or -1 for a percentile
  private final double percentile;
  private final double budget;

  private Hedging(long delayNanos, double percentile, double budget) {
    this.delayNanos = delayNanos;
    this.percentile = percentile;
    this.budget = budget;
  }

  /**
   * Returns hedging after a fixed delay.
   *
   * @throws IllegalArgumentException if the delay is negative
   */
  public static Hedging after(Duration delay) {
    return new Hedging(Durations.nanos(Durations.nonNegative("delay", delay)), 0,
        DEFAULT_BUDGET);
  }

  /**
   * Returns hedging after the given percentile of the client's successful calls' latencies over
   * the last 10 to 20 seconds (e.g. 0.98), as Finagle does; until 100 calls have been measured
   * no hedge is sent. Latencies are kept in a histogram with 1/32 relative precision, and the
   * percentile is rounded up to its bucket's top.
   *
   * @throws IllegalArgumentException if {@code percentile} is not in (0, 1)
   */
  public static Hedging atPercentile(double percentile) {
    if (!(percentile > 0 && percentile < 1)) {
      throw new IllegalArgumentException("percentile: " + percentile + " (expected: in (0, 1))");
    }
    return new Hedging(-1, percentile, DEFAULT_BUDGET);
  }

  /**
   * Returns a copy whose hedges are at most {@code share} of the calls; default 0.02.
   *
   * @throws IllegalArgumentException if {@code share} is not in (0, 1]
   */
  public Hedging withBudget(double share) {
    if (!(share > 0 && share <= 1)) {
      throw new IllegalArgumentException("budget: " + share + " (expected: in (0, 1])");
    }
    return new Hedging(delayNanos, percentile, share);
  }

  /** Returns the fixed delay, or {@code null} when the delay is a percentile. */
  public Duration delay() {
    return delayNanos < 0 ? null : Duration.ofNanos(delayNanos);
  }

  /** Returns the percentile, or 0 when the delay is fixed. */
  public double percentile() {
    return percentile;
  }

  /** Returns the most hedges as a share of calls; default 0.02. */
  public double budget() {
    return budget;
  }


  @Override
  public boolean equals(Object o) {
    return o instanceof Hedging h && h.delayNanos == delayNanos && h.percentile == percentile
        && h.budget == budget;
  }

  @Override
  public int hashCode() {
    return Objects.hash(delayNanos, percentile, budget);
  }

  @Override
  public String toString() {
    return "Hedging{" + (delayNanos >= 0 ? "after " + Duration.ofNanos(delayNanos)
        : "at p" + percentile * 100) + ", budget " + budget * 100 + "%}";
  }
}

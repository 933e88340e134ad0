package dev.ballast.core;

/**
 * Envoy's slow start ({@code slow_start_config} of its round robin and least request balancers):
 * an endpoint that joins later starts at a fraction of its weight, {@code max(floor, (t /
 * window)^(1 / aggression))} after t of its window, quantized here to tenths (rounded down,
 * never below the floor) and kept as a whole percent. Quantizing bounds the rebuilds per ramp
 * (ten at most) so that each snapshot holds fixed weights and its pick stays as cheap as without
 * slow start; see {@link BalancerConfig#slowStartWindow()}.
 */
final class SlowStart {

  /** A node's join time when it does not ramp (it came with the first update, or a selector's). */
  static final long NOT_RAMPING = Long.MIN_VALUE;

  /** A snapshot's next step when nothing in it ramps. */
  static final long NEVER = Long.MAX_VALUE;

  private final Ticker ticker;
  private final long windowNanos;
  private final double aggression;
  private final int floorPercent;

  private SlowStart(BalancerConfig config) {
    this.ticker = config.ticker();
    this.windowNanos = config.slowStartWindow().toNanos();
    this.aggression = config.slowStartAggression();
    this.floorPercent = config.slowStartMinWeightPercent();
  }

  /** Returns the config's slow start, or null when it is off. */
  static SlowStart of(BalancerConfig config) {
    return config.slowStartWindow().isZero() ? null : new SlowStart(config);
  }

  long now() {
    return ticker.nanoTime();
  }

  /** Returns the percent of its weight a node that joined at {@code joined} gets at {@code now}. */
  int percent(long joined, long now) {
    if (joined == NOT_RAMPING || now - joined >= windowNanos) {
      return 100;
    }
    double t = Math.max(0, now - joined) / (double) windowNanos;
    // The epsilon keeps a reading taken exactly at a step from rounding below it.
    int tenths = (int) (Math.pow(t, 1 / aggression) * 10 + 1e-9);
    return Math.max(floorPercent, Math.min(100, tenths * 10));
  }

  /** Returns when a node at {@code percent} (below 100) moves to its next tenth. */
  long nextStep(long joined, int percent) {
    int next = (percent / 10 + 1) * 10;
    return joined + (long) Math.ceil(windowNanos * Math.pow(next / 100.0, aggression));
  }
}

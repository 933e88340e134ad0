package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.internal.IntMath;
import java.util.Arrays;

/**
 * Envoy's slow start ({@code slow_start_config} of its round robin and least request balancers):
 * an endpoint that joins later starts at a fraction of its weight, {@code max(floor, (t /
 * window)^(1 / aggression))} after t of its window, quantized here to tenths (rounded down,
 * never below the floor). Levels are kept in millionths of the weight ({@link #FULL}), so a
 * fractional floor such as 0.1% is held exactly. Quantizing bounds the rebuilds per ramp (ten at
 * most) so that each snapshot holds fixed weights and its pick stays as cheap as without slow
 * start; see {@link BalancerConfig#slowStartWindow()}.
 */
final class SlowStart {

  /** A node's join time when it does not ramp (it came with the first update, or a selector's). */
  static final long NOT_RAMPING = Long.MIN_VALUE;

  /** A snapshot's next step when nothing in it ramps. */
  static final long NEVER = Long.MAX_VALUE;

  /** The level of a whole weight: levels are millionths of it. */
  static final int FULL = 1_000_000;

  private static final int TENTH = FULL / 10;

  private final Ticker ticker;
  private final long windowNanos;
  private final double aggression;
  private final int floor;

  private SlowStart(BalancerConfig config) {
    this.ticker = config.ticker();
    this.windowNanos = config.slowStartWindow().toNanos();
    this.aggression = config.slowStartAggression();
    this.floor = floorLevel(config.slowStartMinWeightPercent());
  }

  /** Returns a floor in percent as a level: the nearest millionth, at least one. */
  static int floorLevel(double percent) {
    return (int) Math.max(1, Math.min(FULL, Math.round(percent * (FULL / 100))));
  }

  /** Returns the config's slow start, or null when it is off. */
  static SlowStart of(BalancerConfig config) {
    return config.slowStartWindow().isZero() ? null : new SlowStart(config);
  }

  long now() {
    return ticker.nanoTime();
  }

  /**
   * Returns the level (millionths of its weight, {@link #FULL} for all of it) a node that joined
   * at {@code joined} gets at {@code now}.
   */
  int level(long joined, long now) {
    if (joined == NOT_RAMPING || now - joined >= windowNanos) {
      return FULL;
    }
    double t = Math.max(0, now - joined) / (double) windowNanos;
    // The epsilon keeps a reading taken exactly at a step from rounding below it.
    int tenths = (int) (Math.pow(t, 1 / aggression) * 10 + 1e-9);
    return Math.max(floor, Math.min(FULL, tenths * TENTH));
  }

  /**
   * Returns the nodes' levels now ({@link #FULL} for those that do not ramp) and when the first
   * of them steps next, or null when none ramps.
   */
  Ramp ramp(Node<?>[] nodes) {
    long now = now();
    int[] levels = null;
    long next = NEVER;
    for (int i = 0; i < nodes.length; i++) {
      int level = level(((EngineNode<?>) nodes[i]).joined, now);
      if (level < FULL) {
        if (levels == null) {
          levels = new int[nodes.length];
          Arrays.fill(levels, FULL);
        }
        levels[i] = level;
        next = Math.min(next, nextStep(((EngineNode<?>) nodes[i]).joined, level));
      }
    }
    return levels == null ? null : new Ramp(levels, next);
  }

  /** The nodes' levels during a ramp, and the time of its next step on the ticker. */
  record Ramp(int[] levels, long nextStep) {}

  /** Returns the levels rounded up to multiples of {@code unit}, divided by their gcd. */
  static int[] reduced(int[] levels, int unit) {
    int[] out = new int[levels.length];
    int g = 0;
    for (int i = 0; i < levels.length; i++) {
      out[i] = (levels[i] + unit - 1) / unit * unit;
      g = IntMath.gcd(g, out[i]);
    }
    for (int i = 0; i < out.length; i++) {
      out[i] /= g;
    }
    return out;
  }

  /** Returns when a node at {@code level} (below {@link #FULL}) moves to its next tenth. */
  long nextStep(long joined, int level) {
    int next = level / TENTH + 1;
    return joined + (long) Math.ceil(windowNanos * Math.pow(next / 10.0, aggression));
  }

}

package dev.ballast.core;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Weighted round robin during a slow-start ramp (round robin's and VNSWRR's), with a ring that
 * stays small under a fine floor. One VNSWRR ring over every node needs about {@code 100 / floor}
 * virtual nodes per unit of weight not ramping: at a 0.1% floor, 1,000 endpoints of weights 1 to
 * 10 would need 5 million. When the ring would pass {@link #SPLIT_ABOVE} virtual nodes, the nodes
 * at the floor (a level under a tenth of the top one) get a ring of their own, by weight, and
 * take every {@code period}-th pick, {@code period = round(Σ weights / Σ floor weights)}, by a
 * counter; the others keep a ring of their own, whose levels are tenths. Both rings are then as small as the weights allow, and the share the floor nodes get
 * is their weighted share up to the rounding of the period (which the split requires to be at
 * least {@value #MIN_PERIOD}, so within 5%).
 */
final class RampRing {

  /** The ring size above which the floor nodes get a ring of their own. */
  static final int SPLIT_ABOVE = 1 << 16;

  private static final int MIN_PERIOD = 10;

  private RampRing() {}

  /** Rejects ramped weights whose rings would pass {@link Vnswrr#MAX_RING}. */
  static void check(int[] weights, int[] levels) {
    boolean[] floor = floorNodes(weights, levels);
    if (floor == null) {
      Vnswrr.checkRing(weights);
    } else {
      Vnswrr.checkRing(part(weights, floor, true));
      Vnswrr.checkRing(part(weights, floor, false));
    }
  }

  /** Returns the weighted round robin of the nodes over their ramped weights (checked). */
  static <T> Snapshot<T> snapshot(String name, Node<T>[] nodes, int[] weights, int[] levels,
      BalancerConfig config) {
    boolean[] floor = floorNodes(weights, levels);
    if (floor == null) {
      return Vnswrr.ring(name, nodes, weights, config);
    }
    long atFloor = 0;
    long total = 0;
    for (int i = 0; i < weights.length; i++) {
      total += weights[i];
      atFloor += floor[i] ? weights[i] : 0;
    }
    return new Interleaved<>(name, nodes,
        Vnswrr.ring(name, part(nodes, floor, true), part(weights, floor, true), config),
        Vnswrr.ring(name, part(nodes, floor, false), part(weights, floor, false), config),
        (int) Math.round((double) total / atFloor), config);
  }

  /**
   * Returns which nodes sit at the floor, or null when one ring serves: none does, the ring is
   * small enough, or they take too large a share for a period.
   */
  private static boolean[] floorNodes(int[] weights, int[] levels) {
    int top = 0;
    for (int level : levels) {
      top = Math.max(top, level);
    }
    boolean[] floor = new boolean[levels.length];
    boolean any = false;
    long atFloor = 0;
    long total = 0;
    long size = 0;
    int g = 0;
    for (int i = 0; i < levels.length; i++) {
      floor[i] = levels[i] * 10L < top;
      any |= floor[i];
      atFloor += floor[i] ? weights[i] : 0;
      total += weights[i];
      g = Vnswrr.gcd(g, weights[i]);
    }
    for (int w : weights) {
      size += w / g;
    }
    if (!any || size <= SPLIT_ABOVE || total < MIN_PERIOD * atFloor
        || atFloor == total) {
      return null;
    }
    return floor;
  }

  private static int[] part(int[] values, boolean[] floor, boolean atFloor) {
    int n = 0;
    for (boolean f : floor) {
      n += f == atFloor ? 1 : 0;
    }
    int[] out = new int[n];
    for (int i = 0, k = 0; i < values.length; i++) {
      if (floor[i] == atFloor) {
        out[k++] = values[i];
      }
    }
    return out;
  }

  private static <T> Node<T>[] part(Node<T>[] nodes, boolean[] floor, boolean atFloor) {
    int n = 0;
    for (boolean f : floor) {
      n += f == atFloor ? 1 : 0;
    }
    @SuppressWarnings("unchecked")
    Node<T>[] out = new Node[n];
    for (int i = 0, k = 0; i < nodes.length; i++) {
      if (floor[i] == atFloor) {
        out[k++] = nodes[i];
      }
    }
    return out;
  }

  /** The floor nodes' ring one pick in {@code period}, the others' ring otherwise. */
  static final class Interleaved<T> extends Snapshot<T> {
    private final Snapshot<T> floor;
    private final Snapshot<T> rest;
    private final int period;
    private final AtomicInteger position;

    Interleaved(String name, Node<T>[] nodes, Snapshot<T> floor, Snapshot<T> rest, int period,
        BalancerConfig config) {
      super(name, nodes, config);
      this.floor = floor;
      this.rest = rest;
      this.period = period;
      // a random start, so that clients updated together do not take their floor turns together
      this.position = new AtomicInteger(config.random().nextInt(period));
    }

    @Override
    Node<T> next() {
      // Masked to stay positive: after 2^31 picks the count restarts at 0, once.
      int c = position.getAndIncrement() & Integer.MAX_VALUE;
      return c % period == 0 ? floor.next() : rest.next();
    }
  }
}

package dev.ballast.core.roundrobin;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.IntMath;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Weighted round robin during a slow-start ramp (round robin's and VNSWRR's: Tengine's virtual
 * node rings, {@link Vnswrr}), with rings that stay small under a fine floor. One ring over every
 * node needs about {@code 100 / floor} virtual nodes per unit of weight not ramping: at a 0.1%
 * floor, 1,000 endpoints of weights 1 to 10 would need 5 million. When the ring would pass
 * {@link #SPLIT_ABOVE} virtual nodes, the nodes at the floor (a level under a tenth of the top
 * one) get a ring of their own, by weight, and the others one whose levels are tenths: both stay
 * small. A counter interleaves them evenly, as a line is drawn on a grid (Bresenham, "Algorithm
 * for computer control of a digital plotter", 1965): with the floor's share of picks {@code s}
 * in 32-bit fixed point, pick c goes to the floor's ring when {@code floor((c + 1) × s)} passes
 * {@code floor(c × s)}, so every run of picks gives the floor nodes their weighted share within
 * one pick.
 */
final class RampRing {

  /** The ring size above which the floor nodes get a ring of their own. */
  static final int SPLIT_ABOVE = 1 << 16;

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
      return Vnswrr.ringOf(name, nodes, weights, config);
    }
    long atFloor = 0;
    long total = 0;
    for (int i = 0; i < weights.length; i++) {
      total += weights[i];
      atFloor += floor[i] ? weights[i] : 0;
    }
    return new Interleaved<>(name, nodes,
        Vnswrr.ringOf(name, part(nodes, floor, true), part(weights, floor, true), config),
        Vnswrr.ringOf(name, part(nodes, floor, false), part(weights, floor, false), config),
        Math.min(0xFFFFFFFFL, Math.max(1, Math.round(0x1p32 * atFloor / total))), config);
  }

  /**
   * Returns which nodes sit at the floor, or null when one ring serves: none does, or the ring
   * is small enough.
   */
  private static boolean[] floorNodes(int[] weights, int[] levels) {
    int top = 0;
    for (int level : levels) {
      top = Math.max(top, level);
    }
    boolean[] floor = new boolean[levels.length];
    boolean any = false;
    long size = 0;
    int g = 0;
    for (int i = 0; i < levels.length; i++) {
      floor[i] = levels[i] * 10L < top;
      any |= floor[i];
      g = IntMath.gcd(g, weights[i]);
    }
    for (int w : weights) {
      size += w / g;
    }
    return any && size > SPLIT_ABOVE ? floor : null;
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

  /** The floor nodes' ring for their share of the picks, the others' ring otherwise. */
  static final class Interleaved<T> extends Snapshot<T> {
    private final Snapshot<T> floor;
    private final Snapshot<T> rest;
    private final long share;
    private final AtomicInteger position;

    /** {@code share}: the floor nodes' share of the picks, in units of 2^-32 (1 to 2^32 - 1). */
    Interleaved(String name, Node<T>[] nodes, Snapshot<T> floor, Snapshot<T> rest, long share,
        BalancerConfig config) {
      super(name, nodes, config);
      this.floor = floor;
      this.rest = rest;
      this.share = share;
      // a random start, so that clients updated together do not take their floor turns together
      this.position = new AtomicInteger(config.random().nextInt(1 << 30));
    }

    @Override
    public Node<T> next() {
      // Masked to stay positive: after 2^31 picks the count restarts at 0, once. c × share is
      // below 2^63: no overflow.
      long c = position.getAndIncrement() & Integer.MAX_VALUE;
      return (c + 1) * share >>> 32 != c * share >>> 32 ? floor.next() : rest.next();
    }
  }
}

package dev.ballast.core.loadaware;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.AliasTable;

/**
 * The power of two choices (Mitzenmacher, "The Power of Two Choices in Randomized Load
 * Balancing", 2001; Finagle's P2C distributor): draw two distinct nodes uniformly
 * ({@code a = r(n); b = r(n-1); if (b >= a) b++}, both from one random 64-bit number) and take
 * the one of lower cost. If the cheaper
 * one is not open and the other is, the other is taken.
 */
abstract class P2cSnapshot<T> extends Snapshot<T> {

  final int[] weights;
  // During a slow-start ramp: candidates are drawn in proportion to their ramp levels.
  private final AliasTable ramp;

  /**
   * Creates the snapshot; {@code levels} (null when nothing ramps) are the nodes' slow-start
   * levels: while some node ramps, candidates are drawn in proportion to them, so that a
   * ramping node is seldom both candidates (with uniform draws, half of a fleet joining at once
   * would be both candidates of a quarter of the picks, whatever their costs); the costs are
   * divided by the weights, which include the ramp.
   */
  P2cSnapshot(String name, Node<T>[] nodes, int[] weights, int[] levels,
      BalancerConfig config) {
    super(name, nodes, config);
    this.weights = weights;
    this.ramp = levels == null ? null : new AliasTable(levels);
  }

  /** Returns whether node {@code b} is strictly cheaper than node {@code a} (indices). */
  abstract boolean cheaper(int b, int a);

  /**
   * Returns whether to take node {@code b} rather than node {@code a} (indices), given the
   * pick's random number {@code r}; default: {@link #cheaper}.
   */
  boolean takes(int b, int a, long r) {
    return cheaper(b, a);
  }

  @Override
  public final Node<T> next() {
    int n = nodes.length;
    if (n == 1) {
      return nodes[0];
    }
    long r = random.nextLong();
    int a;
    int b;
    if (ramp != null) {
      // Both draws from one 64-bit number, 32 bits each; the same node twice is rare (out of line).
      a = ramp.draw(r >>> 32);
      b = ramp.draw(r & 0xFFFFFFFFL);
      if (b == a) {
        b = other(a, n);
      }
    } else {
      // Both draws from one 64-bit number, each half scaled to its range by multiply-shift
      // (Lemire, "Fast Random Integer Generation in an Interval", 2019) without the rejection
      // step: a bias of at most n / 2^32, far below anything a balancer can observe.
      a = (int) (((r >>> 32) * n) >>> 32);
      b = uniformOther(a, r, n);
    }
    Node<T> pick = nodes[a];
    Node<T> other = nodes[b];
    if (takes(b, a, r)) {
      pick = nodes[b];
      other = nodes[a];
    }
    if (pick.availability() != Availability.OPEN && other.availability() == Availability.OPEN) {
      return other;
    }
    return pick;
  }

  /**
   * Returns a second candidate when the ramp's draws gave {@code a} twice: drawn again from the
   * ramp up to three times (a uniform draw instead would often pair two ramping nodes, one then
   * picked), then uniformly among the others.
   */
  private int other(int a, int n) {
    for (int i = 0; i < 3; i++) {
      int b = ramp.draw(random.nextLong() >>> 32);
      if (b != a) {
        return b;
      }
    }
    return uniformOther(a, random.nextLong(), n);
  }

  /** Returns a node other than {@code a}, uniformly, from the low half of {@code r}. */
  private static int uniformOther(int a, long r, int n) {
    int b = (int) (((r & 0xFFFFFFFFL) * (n - 1)) >>> 32);
    return b >= a ? b + 1 : b;
  }
}

package dev.ballast.core;

/**
 * The power of two choices (Mitzenmacher, "The Power of Two Choices in Randomized Load
 * Balancing", 2001; Finagle's P2C distributor): draw two distinct nodes uniformly
 * ({@code a = r(n); b = r(n-1); if (b >= a) b++}) and take the one of lower cost. If the cheaper
 * one is not open and the other is, the other is taken.
 */
abstract class P2cSnapshot<T> extends Snapshot<T> {

  final int[] weights;

  P2cSnapshot(String name, Node<T>[] nodes, int[] weights, BalancerConfig config) {
    super(name, nodes, config);
    this.weights = weights;
  }

  /** Returns whether node {@code b} is strictly cheaper than node {@code a} (indices). */
  abstract boolean cheaper(int b, int a);

  @Override
  final Node<T> next() {
    int n = nodes.length;
    if (n == 1) {
      return nodes[0];
    }
    int a = random.nextInt(n);
    int b = random.nextInt(n - 1);
    if (b >= a) {
      b++;
    }
    Node<T> pick = nodes[a];
    Node<T> other = nodes[b];
    if (cheaper(b, a)) {
      pick = nodes[b];
      other = nodes[a];
    }
    if (pick.availability() != Availability.OPEN && other.availability() == Availability.OPEN) {
      return other;
    }
    return pick;
  }
}

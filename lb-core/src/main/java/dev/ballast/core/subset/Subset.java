package dev.ballast.core.subset;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import dev.ballast.core.internal.BalancerAccess;
import java.util.BitSet;
import java.util.List;
import java.util.function.Supplier;

/**
 * One set of member nodes, as a bitset of slots, and its child balancer, shared by every subset
 * with exactly these members. Immutable once published, except for the child balancer, made on
 * the first pick: an update pays only for member sets, and a subset nobody asks for never costs
 * a balancer. Equal by members, so that a hash map finds the subset of a member set.
 *
 * @param <T> the thing being balanced
 */
final class Subset<T> {

  /** The member slots; never modified. */
  final BitSet members;
  /** How many members there are, at least 1. */
  final int size;
  private final int hash;
  // the nodes and weights by slot of the state that made this subset (its members' entries never
  // change while it is in use: a member that leaves, or whose weight changes, gets a new subset)
  private final Node<T>[] bySlot;
  private final int[] weights;
  private final Supplier<? extends Balancer<T>> factory;
  private volatile Balancer<T> child;

  Subset(BitSet members, Node<T>[] bySlot, int[] weights,
      Supplier<? extends Balancer<T>> factory) {
    this.members = members;
    this.size = members.cardinality();
    this.hash = members.hashCode();
    this.bySlot = bySlot;
    this.weights = weights;
    this.factory = factory;
  }

  /** Returns the child balancer over the members, making it on first use. */
  Balancer<T> child() {
    Balancer<T> c = child;
    return c != null ? c : makeChild();
  }

  /**
   * Makes the child from nodes and weights the selector made and validated: no address is hashed
   * and no weight checked again ({@link BalancerAccess#setValidatedNodes}).
   */
  private synchronized Balancer<T> makeChild() {
    Balancer<T> c = child;
    if (c == null) {
      @SuppressWarnings("unchecked")
      Node<T>[] nodes = new Node[size];
      int[] w = new int[size];
      long[] words = members.toLongArray(); // a walk over the words: faster than a stream
      for (int i = 0, n = 0; i < words.length; i++) {
        for (long x = words[i]; x != 0; x &= x - 1, n++) {
          nodes[n] = bySlot[(i << 6) + Long.numberOfTrailingZeros(x)];
          w[n] = weights[(i << 6) + Long.numberOfTrailingZeros(x)];
        }
      }
      c = factory.get();
      BalancerAccess.setValidatedNodes(c, nodes, w);
      child = c;
    }
    return c;
  }

  /** Returns the member nodes in slot order (a stable order), unmodifiable. */
  List<Node<T>> nodes() {
    return members.stream().mapToObj(s -> bySlot[s]).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof Subset<?> s && s.hash == hash && s.size == size
        && s.members.equals(members);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}

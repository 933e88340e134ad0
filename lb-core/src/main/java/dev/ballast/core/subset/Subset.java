package dev.ballast.core.subset;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import dev.ballast.core.ChildBalancer;
import java.util.BitSet;
import java.util.List;

/**
 * A set of member slots and its child balancer, made on the first pick (so that a subset nobody
 * asks for costs no balancer), shared by every subset of these members. Equal by members.
 *
 * @param <T> the thing being balanced
 */
final class Subset<T> {

  /** The member slots; never modified. */
  final BitSet members;
  /** How many members there are, at least 1. */
  final int size;
  private final int hash;
  private volatile Balancer<T> child;

  Subset(BitSet members) {
    this.members = members;
    this.size = members.cardinality();
    this.hash = members.hashCode();
  }

  /**
   * Returns the child balancer over the members, making it on first use from the nodes and
   * weights of a state that holds this subset (every such state has the same ones at its member
   * slots: a member that leaves, or whose weight changes, gets a new subset).
   */
  Balancer<T> child(SubsetState<T> state) {
    Balancer<T> c = child;
    return c != null ? c : makeChild(state.bySlot(), state.weights(), state.owner());
  }

  /**
   * Makes the child from nodes and weights the selector made and validated: no address is hashed
   * and no weight checked again ({@link ChildBalancer#setMembers}).
   */
  private synchronized Balancer<T> makeChild(Node<T>[] bySlot, int[] weights,
      SubsetIndex<T> owner) {
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
      ChildBalancer<T> made = ChildBalancer.of(owner.factory.get());
      made.hearHealthOf(owner.prototype); // which made the nodes
      made.setMembers(nodes, w);
      child = c = made;
    }
    return c;
  }

  /** Returns whether the child balancer was made (the subset was picked from, or warmed). */
  boolean hasChild() {
    return child != null;
  }

  /** Returns the member nodes of a state that holds this subset, in slot order, unmodifiable. */
  List<Node<T>> nodes(SubsetState<T> state) {
    return members.stream().mapToObj(s -> state.bySlot()[s]).toList();
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

package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/**
 * One set of member nodes (a {@link SlotSet} of slot ids) and its child balancer, shared by
 * every subset with exactly these members.
 *
 * <p>The child balancer is made on the first pick, not at build time: an update pays only for
 * the member sets, and a subset nobody asks for never costs a balancer. After that, a pick is
 * one volatile read. The member set is immutable once the subset is published.
 *
 * @param <T> the thing being balanced
 */
public final class Subset<T> {

  private final SlotSet members;
  private final Node<T>[] bySlot;
  private final Supplier<? extends Balancer<T>> factory;
  private final int size;
  private volatile Balancer<T> child;
  // how many places of the updater's current state use this subset (see Canon); updater only
  int refs;

  Subset(SlotSet members, Node<T>[] bySlot, Supplier<? extends Balancer<T>> factory) {
    this.members = members;
    this.bySlot = bySlot;
    this.factory = factory;
    this.size = members.size();
  }

  /** Returns the child balancer over the members, making it on first use. */
  public Balancer<T> child() {
    Balancer<T> c = child;
    return c != null ? c : makeChild();
  }

  private synchronized Balancer<T> makeChild() {
    Balancer<T> c = child;
    if (c == null) {
      c = factory.get();
      c.setNodes(nodes());
      child = c;
    }
    return c;
  }

  /** Returns whether the child balancer has been made. */
  public boolean hasChild() {
    return child != null;
  }

  /** Returns the members in slot order. */
  public List<Node<T>> nodes() {
    List<Node<T>> list = new ArrayList<>(size);
    for (int slot : members.toArray()) {
      list.add(bySlot[slot]);
    }
    return Collections.unmodifiableList(list);
  }

  /** Returns the member slot ids. */
  SlotSet members() {
    return members;
  }

  /** Returns how many members there are (at least 1). */
  public int size() {
    return size;
  }
}

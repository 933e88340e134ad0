package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>A subset an incremental update touches is made <em>pending</em> ({@link #pending}): its
 * size and content hash come from the changes, its members are the AND of up to {@value
 * #MAX_SOURCES} sets of the index, computed on first read (the first pick makes the child
 * balancer from them anyway) and kept; the sources are let go then. Until that read such a
 * subset is one object, so touching a subset costs the update one allocation.
 *
 * @param <T> the thing being balanced
 */
public final class Subset<T> {

  /** The most sets a pending subset keeps to AND; with more, the members are made at once. */
  static final int MAX_SOURCES = 4;

  private final Node<T>[] bySlot;
  private final Supplier<? extends Balancer<T>> factory;
  private final int size;
  /** The members' content hash ({@link SlotSet#hash}). */
  final long hash;
  // made from the start, or on first read from the sources (then let go)
  private volatile SlotSet members;
  private SlotSet src0;
  private SlotSet src1;
  private SlotSet src2;
  private SlotSet src3;
  private volatile Balancer<T> child;
  // how many places of the updater's current state use this subset (see Canon); updater only
  int refs;

  Subset(SlotSet members, Node<T>[] bySlot, Supplier<? extends Balancer<T>> factory) {
    this.members = members;
    this.bySlot = bySlot;
    this.factory = factory;
    this.size = members.size();
    this.hash = members.hash;
  }

  private Subset(int size, long hash, SlotSet[] sources, int n, Node<T>[] bySlot,
      Supplier<? extends Balancer<T>> factory) {
    this.bySlot = bySlot;
    this.factory = factory;
    this.size = size;
    this.hash = hash;
    src0 = sources[0];
    src1 = sources[1];
    src2 = n > 2 ? sources[2] : null;
    src3 = n > 3 ? sources[3] : null;
  }

  /**
   * Returns a subset of {@code size} members (at least 1) with content hash {@code hash}, the
   * slots in every one of the first {@code n} {@code sources} (at least two): pending if there
   * are at most {@value #MAX_SOURCES}, else made now. The array is not kept. Every slot is
   * below {@code bySlot.length}.
   */
  static <T> Subset<T> pending(int size, long hash, SlotSet[] sources, int n,
      Node<T>[] bySlot, Supplier<? extends Balancer<T>> factory) {
    if (n < 2) {
      throw new IllegalArgumentException("an intersection of " + n + " sets");
    }
    if (n > MAX_SOURCES) {
      return new Subset<>(made(sources, n, bySlot.length, size, hash), bySlot, factory);
    }
    return new Subset<>(size, hash, sources, n, bySlot, factory);
  }

  /** Returns whether the members have not been computed yet. */
  boolean isPending() {
    return members == null;
  }

  /** Returns the child balancer over the members, making it on first use. */
  public Balancer<T> child() {
    Balancer<T> c = child;
    return c != null ? c : makeChild();
  }

  private Balancer<T> makeChild() {
    // The members first, so that the lock is held for their AND alone: an updater reading a
    // pending subset's members never waits for a child balancer being built.
    members();
    synchronized (this) {
      Balancer<T> c = child;
      if (c == null) {
        c = factory.get();
        c.setNodes(nodes());
        child = c;
      }
      return c;
    }
  }

  /** Returns whether the child balancer has been made. */
  public boolean hasChild() {
    return child != null;
  }

  /** Returns the members in slot order. */
  public List<Node<T>> nodes() {
    List<Node<T>> list = new ArrayList<>(size);
    for (int slot : members().toArray()) {
      list.add(bySlot[slot]);
    }
    return Collections.unmodifiableList(list);
  }

  /** Returns the member slot ids, computing them first if pending. */
  SlotSet members() {
    SlotSet m = members;
    return m != null ? m : make();
  }

  private synchronized SlotSet make() {
    SlotSet m = members;
    if (m == null) {
      SlotSet[] sources = src3 != null ? new SlotSet[] {src0, src1, src2, src3}
          : src2 != null ? new SlotSet[] {src0, src1, src2} : new SlotSet[] {src0, src1};
      m = made(sources, sources.length, bySlot.length, size, hash);
      members = m;
      src0 = null;
      src1 = null;
      src2 = null;
      src3 = null;
    }
    return m;
  }

  /**
   * Returns the AND of the first {@code n} sources, checked to have the expected size (else an
   * {@link IllegalStateException}: the update's bookkeeping is wrong) and, where assertions are
   * on, the expected hash computed from its members.
   */
  private static SlotSet made(SlotSet[] sources, int n, int limit, int size, long hash) {
    SlotSet m = SlotSet.andKnown(sources, n, limit, hash);
    if (m.size() != size) {
      throw new IllegalStateException(
          "intersection of " + m.size() + " slots (expected: " + size + ")");
    }
    assert SlotSet.and(Arrays.copyOf(sources, n), limit).hash == hash : "intersection hash";
    return m;
  }

  /** Returns whether these are the members: same size and hash, then the members. */
  boolean hasMembers(SlotSet m) {
    return m.size() == size && m.hash == hash && members().equals(m);
  }

  /** Returns whether the two have the same members: same size and hash, then the members. */
  boolean sameMembers(Subset<?> other) {
    return other == this
        || other.size == size && other.hash == hash && members().equals(other.members());
  }

  /** Returns how many members there are (at least 1). */
  public int size() {
    return size;
  }
}

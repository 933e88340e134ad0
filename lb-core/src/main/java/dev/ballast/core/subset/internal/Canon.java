package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.function.Supplier;

/**
 * Gives equal member sets one shared {@link Subset} (so one child balancer), found by content
 * (identity, then size and content hash, then the members; the hash is kept by each subset, so
 * a lookup reads no members unless two sets collide, and finds a pending subset without making
 * its members). Kept by the updater across incremental updates, counting how many places (selector table entries, the
 * all-endpoints and default subsets) use each subset, so that an update registers only the
 * subsets it makes and forgets only those it drops; a full build starts a new one. Not
 * thread-safe.
 *
 * <p>The table is open addressing with linear probing, home positions by Fibonacci hashing of
 * the content hash and removal by backward shift (Knuth, TAOCP vol. 3, 6.4, Algorithm R), so
 * that registering and forgetting a subset allocates nothing.
 *
 * @param <T> the thing being balanced
 */
final class Canon<T> {
  private final Supplier<? extends Balancer<T>> factory;
  // each subset's content hash beside it, so that a probe reads no subset whose hash differs
  private long[] hashes = new long[16];
  @SuppressWarnings("unchecked")
  private Subset<T>[] values = new Subset[16];
  private int shift = 64 - 4;
  private int size;

  Canon(Supplier<? extends Balancer<T>> factory) {
    this.factory = factory;
  }

  /** Returns the subset with these members, made (over {@code bySlot}) if there is none. */
  Subset<T> of(SlotSet members, Node<T>[] bySlot) {
    int i = find(members.hash, members, null);
    return values[i] != null ? values[i] : put(i, new Subset<>(members, bySlot, factory));
  }

  /**
   * Returns the subset of the slots in every one of the first {@code n} {@code sources} (at
   * least two), whose size and content hash the caller knows: a registered one with these
   * members, else a new pending one ({@link Subset#pending}). The array is not kept.
   */
  Subset<T> ofIntersection(int size, long hash, SlotSet[] sources, int n, Node<T>[] bySlot) {
    return intern(Subset.pending(size, hash, sources, n, bySlot, factory));
  }

  /**
   * Returns the registered subset with the same members as {@code candidate} (a new, usually
   * pending one), or registers the candidate and returns it.
   */
  Subset<T> intern(Subset<T> candidate) {
    int i = find(candidate.hash, null, candidate);
    return values[i] != null ? values[i] : put(i, candidate);
  }

  /**
   * Returns where the subset with content hash {@code h} and the members of {@code made} (if not
   * null) or of {@code candidate} is, or the free place it would take.
   */
  private int find(long h, SlotSet made, Subset<T> candidate) {
    int mask = values.length - 1;
    int i = home(h);
    for (Subset<T> v; (v = values[i]) != null; i = (i + 1) & mask) {
      if (hashes[i] == h && (made != null ? v.hasMembers(made) : v.sameMembers(candidate))) {
        return i;
      }
    }
    return i;
  }

  private Subset<T> put(int i, Subset<T> s) {
    hashes[i] = s.hash;
    values[i] = s;
    if (++size * 2 > values.length) {
      grow();
    }
    return s;
  }

  /** Returns how many subsets are registered. */
  int size() {
    return size;
  }

  /** Counts one more use of the subset ({@code null} is ignored). */
  void acquire(Subset<T> s) {
    if (s != null) {
      s.refs++;
    }
  }

  /** Counts one use less; a subset no longer used is forgotten. */
  void release(Subset<T> s) {
    if (s != null && --s.refs == 0) {
      retire(s);
    }
  }

  /**
   * Forgets the subset, so that its members get a new subset (with a new child balancer) from
   * now on: used when a member's weight changes, which the old child balancer would not see.
   */
  void retire(Subset<T> s) {
    if (s == null) {
      return;
    }
    int mask = values.length - 1;
    int i = home(s.hash);
    for (; values[i] != null; i = (i + 1) & mask) {
      if (values[i] == s) {
        break;
      }
    }
    if (values[i] == null) {
      return; // already forgotten
    }
    // backward shift: move later entries of the run into the hole if their home allows it
    for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      if (!SlotMap.staysAfterHole(home(hashes[j]), i, j)) {
        hashes[i] = hashes[j];
        values[i] = values[j];
        i = j;
      }
    }
    values[i] = null;
    size--;
  }

  private int home(long hash) {
    return (int) ((hash * 0x9E3779B97F4A7C15L) >>> shift);
  }

  @SuppressWarnings("unchecked")
  private void grow() {
    long[] oldHashes = hashes;
    Subset<T>[] oldValues = values;
    hashes = new long[oldValues.length * 2];
    values = new Subset[oldValues.length * 2];
    shift--;
    int mask = values.length - 1;
    for (int j = 0; j < oldValues.length; j++) {
      if (oldValues[j] != null) {
        int i = home(oldHashes[j]);
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        hashes[i] = oldHashes[j];
        values[i] = oldValues[j];
      }
    }
  }
}

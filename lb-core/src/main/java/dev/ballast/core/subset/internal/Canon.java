package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.function.Supplier;

/**
 * Gives equal member sets one shared {@link Subset} (so one child balancer), found by content
 * ({@link SlotSet#equals}: identity, then size and content hash, then the members; the hash is
 * kept by each set, so a lookup reads no members unless two sets collide). Kept by the
 * updater across incremental updates, counting how many places (selector table entries, the
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
  private SlotSet[] keys = new SlotSet[16];
  // each key's content hash, so that a probe reads no set whose hash differs
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
    int mask = keys.length - 1;
    long h = members.hash;
    int i = home(h);
    for (SlotSet k; (k = keys[i]) != null; i = (i + 1) & mask) {
      if (hashes[i] == h && k.equals(members)) {
        return values[i];
      }
    }
    Subset<T> s = new Subset<>(members, bySlot, factory);
    keys[i] = members;
    hashes[i] = h;
    values[i] = s;
    if (++size * 2 > keys.length) {
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
    int mask = keys.length - 1;
    int i = home(s.members().hash);
    for (; keys[i] != null; i = (i + 1) & mask) {
      if (values[i] == s) {
        break;
      }
    }
    if (keys[i] == null) {
      return; // already forgotten
    }
    // backward shift: move later entries of the run into the hole if their home allows it
    for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
      if (!SlotMap.staysAfterHole(home(hashes[j]), i, j)) {
        keys[i] = keys[j];
        hashes[i] = hashes[j];
        values[i] = values[j];
        i = j;
      }
    }
    keys[i] = null;
    values[i] = null;
    size--;
  }

  private int home(long hash) {
    return (int) ((hash * 0x9E3779B97F4A7C15L) >>> shift);
  }

  @SuppressWarnings("unchecked")
  private void grow() {
    SlotSet[] oldKeys = keys;
    long[] oldHashes = hashes;
    Subset<T>[] oldValues = values;
    keys = new SlotSet[oldKeys.length * 2];
    hashes = new long[oldKeys.length * 2];
    values = new Subset[oldKeys.length * 2];
    shift--;
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != null) {
        int i = home(oldHashes[j]);
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        hashes[i] = oldHashes[j];
        values[i] = oldValues[j];
      }
    }
  }
}

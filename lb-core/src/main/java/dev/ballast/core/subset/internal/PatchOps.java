package dev.ballast.core.subset.internal;

import java.util.Arrays;

/**
 * The pieces of the incremental patch that need no index state: ops, op lists and sets of index
 * keys. An op is {@code slot << 1 | 1} for a slot joining and {@code slot << 1} for a slot
 * leaving, so that sorting the ints orders them by slot, a leave before a join of the same slot.
 */
final class PatchOps {

  private PatchOps() {}

  /** Returns the op of a slot joining ({@code join}) or leaving. */
  static int op(int slot, boolean join) {
    return slot << 1 | (join ? 1 : 0);
  }

  /** A growable list of ints, reused across updates. */
  static final class IntList {
    int[] values = new int[4];
    int size;

    void add(int v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    void clear() {
      size = 0;
    }


    /** Sorts the values in place. */
    void sort() {
      Arrays.sort(values, 0, size);
    }

    boolean sameAs(IntList o) {
      return Arrays.equals(values, 0, size, o.values, 0, o.size);
    }
  }

  /** Returns whether any of the slots is in {@code a} or in {@code b}. */
  static boolean touches(SlotSet a, SlotSet b, int[] slots) {
    for (int s : slots) {
      if (a.contains(s) || b.contains(s)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns an empty set of index keys: key {@code k} is bit {@code k % 64} of word {@code k /
   * 64}, so any number of keys fits and a test over a selector's keys is a few word operations.
   */
  static long[] keyBits(int keyCount) {
    return new long[(keyCount + 63) >>> 6];
  }

  /** Adds index key {@code k} to the set. */
  static void addKey(long[] keys, int k) {
    keys[k >>> 6] |= 1L << k;
  }

  /** Returns whether {@code set} holds every key of {@code sub}. */
  static boolean containsAll(long[] set, long[] sub) {
    for (int w = 0; w < sub.length; w++) {
      if ((set[w] & sub[w]) != sub[w]) {
        return false;
      }
    }
    return true;
  }

  /** Returns whether the two sets have no key in common. */
  static boolean disjoint(long[] a, long[] b) {
    for (int w = 0; w < a.length; w++) {
      if ((a[w] & b[w]) != 0) {
        return false;
      }
    }
    return true;
  }

  /** Returns whether the set has no key. */
  static boolean isEmpty(long[] keys) {
    for (long w : keys) {
      if (w != 0) {
        return false;
      }
    }
    return true;
  }
}

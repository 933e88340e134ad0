package dev.ballast.core.subset.internal;

import java.util.Arrays;

/**
 * The pieces of the incremental patch that need no index state: ops and op lists. An op is
 * {@code slot << 1 | 1} for a slot joining and {@code slot << 1} for a slot leaving, so that
 * sorting the ints orders them by slot, a leave before a join of the same slot.
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

  /** Returns whether the value ids have a value for every position (false for no ids). */
  static boolean covers(int[] ids, int[] pos) {
    if (ids == null) {
      return false;
    }
    for (int p : pos) {
      if (ids[p] < 0) {
        return false;
      }
    }
    return true;
  }

  static boolean sameIds(int[] a, int[] b, int[] pos) {
    for (int p : pos) {
      if (a[p] != b[p]) {
        return false;
      }
    }
    return true;
  }
}

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

    /** Makes room for {@code capacity} values in all. */
    void ensure(int capacity) {
      if (capacity > values.length) {
        values = Arrays.copyOf(values, Math.max(capacity, values.length * 2));
      }
    }


    /** Sorts the values in place. */
    void sort() {
      Arrays.sort(values, 0, size);
    }

    boolean sameAs(IntList o) {
      return Arrays.equals(values, 0, size, o.values, 0, o.size);
    }
  }

  /**
   * The old sets one patch has patched, by identity, each with its transition ops and result:
   * open addressing on each set's kept content hash, so a lookup reads no members and calls no
   * identity hash. Used once, on the updater's thread.
   */
  static final class Done {
    private SlotSet[] keys = new SlotSet[16];
    private IntList[] ops = new IntList[16];
    private SlotSet[] results = new SlotSet[16];
    private int size;

    /** Returns the position of this very set, or -1 when it has not been patched. */
    int find(SlotSet set) {
      if (size == 0) {
        return -1;
      }
      int mask = keys.length - 1;
      for (int i = home(set, mask); keys[i] != null; i = (i + 1) & mask) {
        if (keys[i] == set) {
          return i;
        }
      }
      return -1;
    }

    IntList ops(int at) {
      return ops[at];
    }

    SlotSet result(int at) {
      return results[at];
    }

    /** Records the patch of a set not recorded yet. */
    void add(SlotSet set, IntList setOps, SlotSet result) {
      if ((size + 1) * 2 > keys.length) {
        SlotSet[] k = keys;
        IntList[] o = ops;
        SlotSet[] r = results;
        keys = new SlotSet[k.length * 2];
        ops = new IntList[k.length * 2];
        results = new SlotSet[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
          if (k[i] != null) {
            add(k[i], o[i], r[i]);
          }
        }
      }
      int mask = keys.length - 1;
      int i = home(set, mask);
      while (keys[i] != null) {
        i = (i + 1) & mask;
      }
      keys[i] = set;
      ops[i] = setOps;
      results[i] = result;
      size++;
    }

    private static int home(SlotSet set, int mask) {
      return (set.hashCode() * 0x9E3779B1 >>> 7) & mask;
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

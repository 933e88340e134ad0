package dev.ballast.core.subset.internal;

import java.util.Arrays;
import org.roaringbitmap.RoaringBitmap;

/**
 * The pieces of the incremental patch that need no index state: op lists and the copy-on-write
 * merge of a bitmap with a few changed slots. An op is {@code slot << 1 | 1} for a slot joining
 * and {@code slot << 1} for a slot leaving, so that sorting the ints orders them by slot, a
 * leave before a join of the same slot.
 */
final class PatchOps {

  private PatchOps() {}

  /** Returns the op of a slot joining ({@code join}) or leaving. */
  static int op(int slot, boolean join) {
    return slot << 1 | (join ? 1 : 0);
  }

  /**
   * Returns {@code old} with the first {@code n} ops applied (sorted), built at its exact size;
   * {@code old} itself when nothing changes. Slot bitmaps below 65536 slots are patched by block
   * copies ({@link SlotBitmap#patch}, with the scratch buffer of 65536 chars); others (larger
   * sets) by one XOR with the slots that flip.
   */
  static RoaringBitmap merge(RoaringBitmap old, int[] ops, int n, int limit, char[] scratch) {
    if (limit <= SlotBitmap.LIMIT && (old == null || old instanceof SlotBitmap)) {
      return SlotBitmap.patch((SlotBitmap) old, ops, n, scratch);
    }
    int[] flips = new int[n];
    int f = 0;
    int card = old == null ? 0 : old.getCardinality();
    for (int i = 0; i < n; i++) {
      int slot = ops[i] >>> 1;
      boolean join = (ops[i] & 1) != 0;
      boolean present = old != null && old.contains(slot);
      // a leave then a join of one slot: the join sees the slot absent
      if (f > 0 && flips[f - 1] == slot) {
        present = !present;
      }
      if (present != join) {
        flips[f++] = slot;
        card += join ? 1 : -1;
      }
    }
    if (f == 0) {
      return old == null ? new RoaringBitmap() : old;
    }
    if (card == 0) {
      return new RoaringBitmap();
    }
    RoaringBitmap flipped = RoaringBitmap.bitmapOf(Arrays.copyOf(flips, f));
    return old == null ? flipped : RoaringBitmap.xor(old, flipped);
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

  static boolean touches(RoaringBitmap a, RoaringBitmap b, int[] slots) {
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

package dev.ballast.core.subset.internal;

import java.util.Arrays;
import java.util.Map;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * The pieces of the incremental patch that need no index state: copy-on-write merging of a
 * bitmap with a few changed slots, the op lists, and grouping of changed slots by their value
 * ids. An op is a slot {@code s} joining, or {@code ~s} leaving.
 */
final class PatchOps {

  // up to this many changed slots, a patched bitmap is a clone changed in place (each op one
  // block move); else one XOR merge pass
  static final int FEW_OPS = 64;

  private PatchOps() {}

  /**
   * Returns {@code old} with the ops applied (a slot {@code s} to add, {@code ~s} to remove;
   * sorted by slot), built at its exact size; {@code old} itself when nothing changes.
   */
  static RoaringBitmap merge(RoaringBitmap old, int[] ops, int limit) {
    int size = old == null ? 0 : old.getCardinality();
    int effective = 0;
    for (int op : ops) {
      boolean present = old != null && old.contains(op >= 0 ? op : ~op);
      if (op >= 0 && !present) {
        size++;
        effective++;
      } else if (op < 0 && present) {
        size--;
        effective++;
      }
    }
    if (effective == 0) {
      return old == null ? new RoaringBitmap() : old;
    }
    if (size == 0) {
      return new RoaringBitmap();
    }
    if (old == null) {
      ExactBitmapBuilder out = new ExactBitmapBuilder(size, limit);
      for (int op : ops) {
        if (op >= 0) {
          out.add(op);
        }
      }
      return out.get();
    }
    if (effective <= FEW_OPS) {
      // Copy on write: a clone is a block copy of the containers, then the few ops in place
      // (each shifts an array container's tail); removals first, so that additions reuse
      // the room they free.
      RoaringBitmap out = old.clone();
      for (int op : ops) {
        if (op < 0) {
          out.remove(~op);
        }
      }
      for (int op : ops) {
        if (op >= 0) {
          out.add(op);
        }
      }
      return out;
    }
    // Many ops: every effective op flips its slot, so one XOR with the flipped slots makes the
    // copy in a single merge pass, allocated once, instead of one array shift per op.
    int[] flips = new int[effective];
    int f = 0;
    for (int op : ops) {
      int slot = op >= 0 ? op : ~op;
      if (old.contains(slot) != (op >= 0)) {
        flips[f++] = slot;
      }
    }
    return RoaringBitmap.xor(old, RoaringBitmap.bitmapOf(flips));
  }

  /** A growable list of ints; {@link #sorted()} orders ops by slot. */
  static final class IntList {
    private int[] values = new int[4];
    private int size;

    void add(int v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    int[] sorted() {
      // sort by slot: an op is s (add) or ~s (remove); encode as slot * 2 + (add ? 1 : 0)
      long[] keys = new long[size];
      for (int i = 0; i < size; i++) {
        int v = values[i];
        keys[i] = v >= 0 ? ((long) v << 1) | 1 : (long) ~v << 1;
      }
      Arrays.sort(keys);
      int[] out = new int[size];
      for (int i = 0; i < size; i++) {
        int slot = (int) (keys[i] >>> 1);
        out[i] = (keys[i] & 1) != 0 ? slot : ~slot;
      }
      return out;
    }
  }

  /** An old bitmap (by identity) and the ops applied to it. */
  static final class PatchKey {
    final RoaringBitmap old;
    final int[] ops;
    final int hash;

    PatchKey(RoaringBitmap old, int[] ops) {
      this.old = old;
      this.ops = ops;
      this.hash = System.identityHashCode(old) * 31 + Arrays.hashCode(ops);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof PatchKey && ((PatchKey) o).old == old
          && Arrays.equals(((PatchKey) o).ops, ops);
    }

    @Override
    public int hashCode() {
      return hash;
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

  static IntList opsOf(IntList[] byId, int id) {
    IntList ops = byId[id];
    if (ops == null) {
      ops = new IntList();
      byId[id] = ops;
    }
    return ops;
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

  /** Returns the group of a selector's value combination, keyed by a packed long if it fits. */
  static Group group(Map<Object, Group> groups, int[] ids, int[] pos) {
    int bits = 64 / pos.length;
    long packed = 0;
    boolean fits = bits >= 1;
    for (int p : pos) {
      int id = ids[p];
      if (bits < 32 && id >= 1 << bits) {
        fits = false;
      }
      packed = (packed << bits) | id;
    }
    int[] sel = null;
    Object key;
    if (fits) {
      key = packed;
    } else {
      sel = select(ids, pos);
      key = new IdKey(sel);
    }
    Group g = groups.get(key);
    if (g == null) {
      g = new Group(sel != null ? sel : select(ids, pos));
      groups.put(key, g);
    }
    return g;
  }

  static int[] select(int[] ids, int[] pos) {
    int[] sel = new int[pos.length];
    for (int m = 0; m < pos.length; m++) {
      sel[m] = ids[pos[m]];
    }
    return sel;
  }

  /** The dirty slots that leave ({@code ~slot}) or join ({@code slot}) one value combination. */
  static final class Group {
    final int[] ids;
    final IntList ops = new IntList();

    Group(int[] ids) {
      this.ids = ids;
    }
  }

  /** Value ids as a map key, when they do not pack into a long. */
  static final class IdKey {
    final int[] ids;
    final int hash;

    IdKey(int[] ids) {
      this.ids = ids;
      this.hash = Arrays.hashCode(ids);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof IdKey && Arrays.equals(((IdKey) o).ids, ids);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}

package dev.ballast.core.subset.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.subset.internal.PatchOps.IntList;
import java.util.Arrays;

/**
 * A change some dirty slots of one {@link Patch} share: their value ids before and after ({@code
 * null}: no endpoint), whether their weight changed, and the slots. Slots with the same change
 * leave and join the same subsets, so a patch looks at each change once per selector.
 * Transitions are reused from patch to patch ({@link Group}); a patch reads them only while it
 * runs.
 */
final class Transition {
  /** The value ids by index key before, or {@code null} for a slot that had no endpoint. */
  int[] oldIds;
  /** The value ids by index key after, or {@code null} for a slot whose endpoint is removed. */
  int[] newIds;
  boolean weight;
  // index keys ({@link PatchOps#keyBits}): whose value changed; which the slots have, before
  // and after (none without an endpoint)
  final long[] changed;
  final long[] oldHas;
  final long[] newHas;
  // the first words of the three, for a patch whose index keys fit in one word
  long changed0;
  long oldHas0;
  long newHas0;
  int hash;
  // the value ids packed by the patch's layout (PatchScratch.Packed), set while listing
  long oldPacked;
  long newPacked;
  final IntList slots = new IntList();
  /** The XOR of {@link SlotSet#mix} over the slots: what they add to or take from a set's hash. */
  long mix;
  private final int[] oldBuf;
  private final int[] newBuf;

  private Transition(int nk) {
    this.changed = PatchOps.keyBits(nk);
    this.oldHas = PatchOps.keyBits(nk);
    this.newHas = PatchOps.keyBits(nk);
    this.oldBuf = new int[nk];
    this.newBuf = new int[nk];
  }

  /** Makes this the change of the dirty slot in row {@code row} of the id rows, with no slots. */
  private void reset(int[] dOldIds, int[] dNewIds, int row, boolean hasOld, boolean hasNew,
      boolean weight, int hash) {
    int nk = oldBuf.length;
    Arrays.fill(changed, 0);
    Arrays.fill(oldHas, 0);
    Arrays.fill(newHas, 0);
    for (int k = 0; k < nk; k++) {
      int ov = hasOld ? dOldIds[row * nk + k] : -1;
      int nv = hasNew ? dNewIds[row * nk + k] : -1;
      oldBuf[k] = ov;
      newBuf[k] = nv;
      if (ov != nv) {
        PatchOps.addKey(changed, k);
      }
      if (ov >= 0) {
        PatchOps.addKey(oldHas, k);
      }
      if (nv >= 0) {
        PatchOps.addKey(newHas, k);
      }
    }
    boolean any = changed.length > 0;
    changed0 = any ? changed[0] : 0;
    oldHas0 = any ? oldHas[0] : 0;
    newHas0 = any ? newHas[0] : 0;
    this.oldIds = hasOld ? oldBuf : null;
    this.newIds = hasNew ? newBuf : null;
    this.weight = weight;
    this.hash = hash;
    slots.clear();
    mix = 0;
  }

  /** Returns whether a dirty slot's change is this one (its ids in row {@code row}). */
  private boolean matches(int[] flatOld, int[] flatNew, int row, int nk, boolean hasOld,
      boolean hasNew, boolean w) {
    if (w != weight || hasOld != (oldIds != null) || hasNew != (newIds != null)) {
      return false;
    }
    for (int k = 0; k < nk; k++) {
      if ((hasOld && oldIds[k] != flatOld[row * nk + k])
          || (hasNew && newIds[k] != flatNew[row * nk + k])) {
        return false;
      }
    }
    return true;
  }

  /**
   * The transitions of one patch, {@code get(0)} to {@code get(size() - 1)}, and the pool they
   * come from: kept by the index, so a patch whose changes are like earlier ones allocates no
   * transition. Updater thread only.
   */
  static final class Group {
    // transitions kept for reuse beyond this many are dropped, so that one huge patch does not
    // hold its transitions for good
    private static final int KEEP = 64;
    // slot lists and probe tables longer than this are not kept between patches
    private static final int SLOTS_KEPT = 1024;

    private final int nk;
    private Transition[] items = new Transition[8];
    private int size;
    private int made;
    private int[] table = new int[16];

    /** @param nk how many index keys there are */
    Group(int nk) {
      this.nk = nk;
    }

    /** Returns how many transitions the last {@link #group} found. */
    int size() {
      return size;
    }

    /** Returns the transitions, {@link #size} of them first. */
    Transition[] items() {
      return items;
    }

    /** Returns the i-th transition, in the order first seen. */
    Transition get(int i) {
      return items[i];
    }

    /**
     * Groups the dirty slots by their change, in the order first seen. Each slot's value ids, old
     * and new (-1: no such label), are compared as ints rather than by looking labels up, through
     * an open-addressing table of transition numbers.
     *
     * @param dOldIds the old value ids, a row of {@code nk} per dirty slot
     * @param dNewIds the new value ids, a row of {@code nk} per dirty slot
     */
    void group(int[] dSlot, Endpoint[] dOld, Endpoint[] dNew, int[] dOldIds, int[] dNewIds,
        boolean[] dWeight) {
      size = 0;
      int cap = Integer.highestOneBit(Math.max(4, dSlot.length * 2)) * 2;
      if (table.length < cap || table.length > cap * 8) {
        // (a table left large by one big patch is not cleared whole on every small one)
        table = new int[cap];
      } else {
        Arrays.fill(table, 0);
      }
      int mask = table.length - 1;
      for (int j = 0; j < dSlot.length; j++) {
        boolean hasOld = dOld[j] != null;
        boolean hasNew = dNew[j] != null;
        int h = dWeight[j] ? 1 : 0;
        for (int k = 0; k < nk; k++) {
          h = h * 31 + (hasOld ? dOldIds[j * nk + k] : -2);
          h = h * 31 + (hasNew ? dNewIds[j * nk + k] : -2);
        }
        h ^= h >>> 16;
        Transition found = null;
        int i = h & mask;
        for (; table[i] != 0; i = (i + 1) & mask) {
          Transition tr = items[table[i] - 1];
          if (tr.hash == h
              && tr.matches(dOldIds, dNewIds, j, nk, hasOld, hasNew, dWeight[j])) {
            found = tr;
            break;
          }
        }
        if (found == null) {
          found = next();
          found.reset(dOldIds, dNewIds, j, hasOld, hasNew, dWeight[j], h);
          table[i] = size;
        }
        found.slots.add(dSlot[j]);
        found.mix ^= SlotSet.mix(dSlot[j]);
      }
    }

    private Transition next() {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      if (size == made) {
        items[made++] = new Transition(nk);
      }
      return items[size++];
    }

    /**
     * Ends a patch: keeps at most {@link #KEEP} transitions, drops slot lists and a probe table
     * that a big patch grew, so that between patches the group holds only small arrays.
     */
    void clear() {
      if (made > KEEP) {
        items = Arrays.copyOf(items, KEEP);
        made = KEEP;
      }
      for (int i = 0; i < made; i++) {
        if (items[i].slots.values.length > SLOTS_KEPT) {
          items[i].slots.values = new int[4];
        }
      }
      if (table.length > SLOTS_KEPT) {
        table = new int[16];
      }
      size = 0;
    }
  }
}

package dev.ballast.core.subset.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.subset.internal.PatchOps.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A change some dirty slots of one {@link Patch} share: their value ids before and after ({@code
 * null}: no endpoint), whether their weight changed, and the slots. Slots with the same change
 * leave and join the same subsets, so a patch looks at each change once per selector.
 */
final class Transition {
  final int[] oldIds;
  final int[] newIds;
  final boolean weight;
  // index keys ({@link PatchOps#keyBits}): whose value changed; which the slots have, before
  // and after (none without an endpoint)
  final long[] changed;
  final long[] oldHas;
  final long[] newHas;
  final int hash;
  final IntList slots = new IntList();

  private Transition(int[] oldIds, int[] newIds, boolean weight, int hash) {
    this.oldIds = oldIds;
    this.newIds = newIds;
    this.weight = weight;
    int nk = oldIds != null ? oldIds.length : newIds.length;
    this.changed = PatchOps.keyBits(nk);
    this.oldHas = PatchOps.keyBits(nk);
    this.newHas = PatchOps.keyBits(nk);
    for (int k = 0; k < nk; k++) {
      int ov = oldIds == null ? -1 : oldIds[k];
      int nv = newIds == null ? -1 : newIds[k];
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
    this.hash = hash;
  }

  /**
   * Groups the dirty slots by their change, in the order first seen. Each slot's value ids, old
   * and new (-1: no such label), are compared as ints rather than by looking labels up, through
   * an open-addressing table of transition numbers, so a repeated change allocates nothing.
   *
   * @param dOldIds the old value ids, a row of {@code nk} per dirty slot
   * @param dNewIds the new value ids, a row of {@code nk} per dirty slot
   * @param nk how many index keys there are
   */
  static List<Transition> group(int[] dSlot, Endpoint[] dOld, Endpoint[] dNew, int[] dOldIds,
      int[] dNewIds, boolean[] dWeight, int nk) {
    List<Transition> out = new ArrayList<>();
    int[] table = new int[Integer.highestOneBit(Math.max(4, dSlot.length * 2)) * 2];
    int mask = table.length - 1;
    for (int j = 0; j < dSlot.length; j++) {
      int slot = dSlot[j];
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
        Transition tr = out.get(table[i] - 1);
        if (tr.hash == h && tr.matches(dOldIds, dNewIds, j, nk, hasOld, hasNew, dWeight[j])) {
          found = tr;
          break;
        }
      }
      if (found == null) {
        int[] oldIds = hasOld ? Arrays.copyOfRange(dOldIds, j * nk, j * nk + nk) : null;
        int[] newIds = hasNew ? Arrays.copyOfRange(dNewIds, j * nk, j * nk + nk) : null;
        found = new Transition(oldIds, newIds, dWeight[j], h);
        out.add(found);
        table[i] = out.size();
      }
      found.slots.add(slot);
    }
    return out;
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
}

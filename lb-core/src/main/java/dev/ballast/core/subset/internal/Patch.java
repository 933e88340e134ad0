package dev.ballast.core.subset.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.internal.PatchOps.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * One incremental update of a {@link SubsetIndex} (see its description), made and run once on
 * the updater's thread: the changed key=value bitmaps of the index, then the subsets the changed
 * slots leave or join, each an old bitmap patched by block copies, then the next state, sharing
 * everything else with the previous one. Costs the changes and the subsets they touch, never
 * the number of endpoints.
 *
 * @param <T> the thing being balanced
 */
final class Patch<T> {

  private final SubsetIndex<T> ix;
  private final SubsetState<T> prev;
  private final Node<T>[] bySlot;
  private final int[] dSlot;
  private final Endpoint[] dOld;
  private final Endpoint[] dNew;
  private final boolean[] dWeight;
  private final boolean anyWeight;
  private final int epoch;
  // the dirty slots grouped by their change, in the order first seen
  private final List<Transition> transitions = new ArrayList<>();
  // Each old bitmap patched so far, with its ops and result: a subset with the same members and
  // the same changes (one selector's subset is often another's, or a key=value bitmap of the
  // index) is patched once.
  private final IdentityHashMap<RoaringBitmap, Patched> patches = new IdentityHashMap<>();
  private final List<ComboMap.Entry<T>> touched = new ArrayList<>();
  private int[] touchedSelector = new int[8];
  private final List<RoaringBitmap> newBits = new ArrayList<>();

  Patch(SubsetIndex<T> ix, SubsetState<T> prev, Node<T>[] bySlot, int[] dSlot, Endpoint[] dOld,
      Endpoint[] dNew, int[][] dOldIds, boolean[] dWeight, int epoch) {
    this.ix = ix;
    this.prev = prev;
    this.bySlot = bySlot;
    this.dSlot = dSlot;
    this.dOld = dOld;
    this.dNew = dNew;
    this.dWeight = dWeight;
    this.epoch = epoch;
    boolean w = false;
    for (boolean b : dWeight) {
      w |= b;
    }
    this.anyWeight = w;
    // Each dirty slot's value ids, old and new (-1: no such label; a null row: no endpoint),
    // compared as ints rather than by looking labels up; slots with the same change grouped.
    int nk = ix.indexKeys.length;
    Map<Transition, Transition> byChange = new HashMap<>();
    for (int j = 0; j < dSlot.length; j++) {
      int[] newIds = null;
      if (dNew[j] != null) {
        newIds = new int[nk];
        for (int k = 0; k < nk; k++) {
          newIds[k] = ix.idsBySlot[k][dSlot[j]];
        }
      }
      Transition tr = new Transition(dOldIds[j], newIds, dWeight[j]);
      Transition known = byChange.putIfAbsent(tr, tr);
      if (known == null) {
        transitions.add(tr);
        known = tr;
      }
      known.slots.add(dSlot[j]);
    }
  }

  /** Runs the update and returns the next state. */
  SubsetState<T> run(List<Node<T>> nodes, boolean membership) {
    Map<String, Map<String, RoaringBitmap>> index = patchIndex();
    RoaringBitmap live = membership ? patchLive() : prev.live;
    listChanges();
    patchBitmaps();
    return publish(nodes, index, live, membership);
  }

  /** 1. The index: the bitmaps of changed key=value pairs, copied and patched. */
  private Map<String, Map<String, RoaringBitmap>> patchIndex() {
    String[] keys = ix.indexKeys;
    // per index key, per value id: the transitions leaving or joining it
    IntList[][] indexOps = new IntList[keys.length][];
    for (int t = 0; t < transitions.size(); t++) {
      Transition tr = transitions.get(t);
      if (tr.mask == 0) {
        continue;
      }
      for (int k = 0; k < keys.length; k++) {
        int ov = tr.oldIds == null ? -1 : tr.oldIds[k];
        int nv = tr.newIds == null ? -1 : tr.newIds[k];
        if (ov == nv) {
          continue;
        }
        if (indexOps[k] == null) {
          indexOps[k] = new IntList[ix.valueNames.get(k).size()];
        }
        if (ov >= 0) {
          opsOf(indexOps[k], ov).add(PatchOps.op(t, false));
        }
        if (nv >= 0) {
          opsOf(indexOps[k], nv).add(PatchOps.op(t, true));
        }
      }
    }
    Map<String, Map<String, RoaringBitmap>> index = prev.index;
    for (int k = 0; k < keys.length; k++) {
      if (indexOps[k] == null) {
        continue;
      }
      if (index == prev.index) {
        index = new HashMap<>(prev.index);
      }
      Map<String, RoaringBitmap> inner = new HashMap<>(prev.index.getOrDefault(keys[k], Map.of()));
      for (int id = 0; id < indexOps[k].length; id++) {
        IntList ops = indexOps[k][id];
        if (ops == null) {
          continue;
        }
        String value = ix.valueNames.get(k).get(id);
        RoaringBitmap old = inner.get(value);
        RoaringBitmap bm = merge(old, slotOps(ops));
        if (old != null) {
          patches.put(old, new Patched(ops, bm));
        }
        if (bm.isEmpty()) {
          inner.remove(value);
        } else {
          inner.put(value, bm);
        }
      }
      if (inner.isEmpty()) {
        index.remove(keys[k]);
      } else {
        index.put(keys[k], inner);
      }
    }
    return index;
  }

  private RoaringBitmap patchLive() {
    IntList ops = new IntList();
    for (int j = 0; j < dSlot.length; j++) {
      if (dNew[j] == null) {
        ops.add(PatchOps.op(dSlot[j], false));
      } else if (dOld[j] == null) {
        ops.add(PatchOps.op(dSlot[j], true));
      }
    }
    ops.sort();
    return merge(prev.live, ops);
  }

  /**
   * 2. Which subsets of which selectors change. Dirty slots with the same change (old and new
   * value ids, weight or not) leave and join the same subsets, so each change (a transition) is
   * looked at once per selector and listed, as one op, under the subsets its slots leave and
   * join (a reweighted member "joins" again: same members, but its subset needs a new child
   * balancer), found straight from the value ids. The slots themselves are written out only
   * for the bitmaps that get patched ({@link #slotOps}).
   */
  private void listChanges() {
    for (int i = 0; i < ix.selectors.length; i++) {
      int[] pos = ix.selectorKeyPos[i];
      long mask = ix.selectorMasks[i];
      ComboMap<T> combos = ix.combos[i];
      for (int t = 0; t < transitions.size(); t++) {
        Transition tr = transitions.get(t);
        if (tr.oldIds != null && tr.newIds != null && !tr.weight && (tr.mask & mask) == 0) {
          continue; // none of this selector's keys changed: same subset, same weight
        }
        boolean hasOld = PatchOps.covers(tr.oldIds, pos);
        boolean hasNew = PatchOps.covers(tr.newIds, pos);
        boolean same = hasOld && hasNew && PatchOps.sameIds(tr.oldIds, tr.newIds, pos);
        if (same && !tr.weight) {
          continue;
        }
        if (hasOld && !same) {
          touch(combos.get(tr.oldIds), i).ops.add(PatchOps.op(t, false));
        }
        if (hasNew) {
          ComboMap.Entry<T> en = combos.get(tr.newIds);
          en = touch(en != null ? en : combos.add(tr.newIds), i);
          en.ops.add(PatchOps.op(t, true));
          en.reweighted |= same;
        }
      }
    }
  }

  /**
   * Returns the slot ops (sorted) of transition ops: every slot of each transition, leaving or
   * joining as the transition op says.
   */
  private IntList slotOps(IntList transitionOps) {
    IntList out = new IntList();
    for (int m = 0; m < transitionOps.size; m++) {
      int op = transitionOps.values[m];
      IntList slots = transitions.get(op >>> 1).slots;
      boolean join = (op & 1) != 0;
      for (int q = 0; q < slots.size; q++) {
        out.add(PatchOps.op(slots.values[q], join));
      }
    }
    out.sort();
    return out;
  }

  /** Lists the entry the first time this update touches it, with its ops cleared. */
  private ComboMap.Entry<T> touch(ComboMap.Entry<T> en, int selector) {
    if (en.touchedIn != epoch) {
      en.touchedIn = epoch;
      en.ops.clear();
      en.reweighted = false;
      if (touched.size() == touchedSelector.length) {
        touchedSelector = Arrays.copyOf(touchedSelector, touched.size() * 2);
      }
      touchedSelector[touched.size()] = selector;
      touched.add(en);
    }
    return en;
  }

  /**
   * 3. The touched subsets' new member bitmaps: the old ones patched by block copies, each old
   * bitmap with the same ops once. A reweighted subset is forgotten first, so that its members
   * get a new subset (a new child balancer).
   */
  private void patchBitmaps() {
    Canon<T> canon = ix.canon;
    if (anyWeight) {
      canon.retire(prev.all);
    }
    for (ComboMap.Entry<T> en : touched) {
      if (en.reweighted) {
        canon.retire(en.subset);
      }
      // transition ops are listed in transition order, so equal lists mean equal changes
      RoaringBitmap old = en.subset == null ? null : en.subset.members();
      Patched done = old == null ? null : patches.get(old);
      RoaringBitmap bm;
      if (done != null && done.ops.sameAs(en.ops)) {
        bm = done.result;
      } else {
        bm = merge(old, slotOps(en.ops));
        if (old != null && done == null) {
          patches.put(old, new Patched(en.ops, bm));
        }
      }
      newBits.add(bm);
    }
  }

  /** 4. The next state: subsets shared by equal members, use counts moved from old to new. */
  private SubsetState<T> publish(List<Node<T>> nodes, Map<String, Map<String, RoaringBitmap>> index,
      RoaringBitmap live, boolean membership) {
    Canon<T> canon = ix.canon;
    for (int t = 0; t < touched.size(); t++) {
      ComboMap.Entry<T> en = touched.get(t);
      RoaringBitmap bm = newBits.get(t);
      en.next = bm.isEmpty() ? null : canon.of(bm, bySlot);
      canon.acquire(en.next);
    }
    Subset<T> all = prev.all;
    if (membership || anyWeight) {
      all = live.isEmpty() ? null : canon.of(live, bySlot);
      canon.acquire(all);
      canon.release(prev.all);
    }
    Subset<T> dflt = defaultSubset(index, live);
    @SuppressWarnings("unchecked")
    Map<RequestLabels, Subset<T>>[] maps = new Map[ix.selectors.length];
    for (int t = 0; t < touched.size(); t++) {
      ComboMap.Entry<T> en = touched.get(t);
      int i = touchedSelector[t];
      if (maps[i] == null) {
        maps[i] = new HashMap<>(prev.tables[i].subsets);
      }
      canon.release(en.subset);
      if (en.next == null) {
        if (en.labels != null) {
          maps[i].remove(en.labels);
        }
        ix.combos[i].remove(en);
      } else {
        if (en.labels == null) {
          String[] values = new String[en.ids.length];
          for (int m = 0; m < values.length; m++) {
            values[m] = ix.valueNames.get(ix.selectorKeyPos[i][m]).get(en.ids[m]);
          }
          en.labels = ix.labels(ix.selectors[i], values);
        }
        maps[i].put(en.labels, en.next);
      }
      en.subset = en.next;
      en.next = null;
    }
    @SuppressWarnings("unchecked")
    SelectorTable<T>[] tables = new SelectorTable[ix.selectors.length];
    for (int i = 0; i < tables.length; i++) {
      tables[i] = maps[i] == null ? prev.tables[i]
          : new SelectorTable<>(ix.selectors[i], prev.tables[i].keysHash, maps[i]);
    }
    return new SubsetState<>(ix, nodes, bySlot, index, live, tables, all, dflt);
  }

  /** The default subset: found again when a changed slot is or becomes one of its members. */
  private Subset<T> defaultSubset(Map<String, Map<String, RoaringBitmap>> index,
      RoaringBitmap live) {
    Subset<T> dflt = prev.defaultSubset;
    if (ix.defaultKeys == null) {
      return dflt;
    }
    RoaringBitmap bits = SubsetIndex.intersect(index, live, ix.defaultKeys, ix.defaultValues);
    if (dflt == null ? bits.isEmpty() : !PatchOps.touches(dflt.members(), bits, dSlot)) {
      return dflt;
    }
    Canon<T> canon = ix.canon;
    if (dflt != null && anyWeight) {
      for (int j = 0; j < dSlot.length; j++) {
        if (dWeight[j] && dflt.members().contains(dSlot[j])) {
          canon.retire(dflt);
          break;
        }
      }
    }
    Subset<T> next = bits.isEmpty() ? null : canon.of(bits, bySlot);
    canon.acquire(next);
    canon.release(dflt);
    return next;
  }

  private RoaringBitmap merge(RoaringBitmap old, IntList sortedOps) {
    return PatchOps.merge(old, sortedOps.values, sortedOps.size, ix.highWater, ix.scratch());
  }

  private static IntList opsOf(IntList[] byId, int id) {
    IntList ops = byId[id];
    if (ops == null) {
      ops = new IntList();
      byId[id] = ops;
    }
    return ops;
  }

  /** An old bitmap's patch: the ops (sorted) and the result. */
  private record Patched(IntList ops, RoaringBitmap result) {}

  /**
   * A change some dirty slots share: their value ids before and after ({@code null}: no
   * endpoint), whether their weight changed, and the slots.
   */
  private static final class Transition {
    final int[] oldIds;
    final int[] newIds;
    final boolean weight;
    // bit k: the value of index key k changed (all bits past 64 keys)
    final long mask;
    final int hash;
    final IntList slots = new IntList();

    Transition(int[] oldIds, int[] newIds, boolean weight) {
      this.oldIds = oldIds;
      this.newIds = newIds;
      this.weight = weight;
      long m = 0;
      int nk = oldIds != null ? oldIds.length : newIds.length;
      for (int k = 0; k < nk; k++) {
        int ov = oldIds == null ? -1 : oldIds[k];
        int nv = newIds == null ? -1 : newIds[k];
        if (ov != nv) {
          m |= k < 64 ? 1L << k : -1L;
        }
      }
      this.mask = m;
      this.hash = (Arrays.hashCode(oldIds) * 31 + Arrays.hashCode(newIds)) * 2 + (weight ? 1 : 0);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Transition t && t.hash == hash && t.weight == weight
          && Arrays.equals(t.oldIds, oldIds) && Arrays.equals(t.newIds, newIds);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}

package dev.ballast.core.subset.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.internal.PatchOps.IntList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One incremental update of a {@link SubsetIndex} (see its description), made and run once on the
 * updater's thread: the changed key=value sets of the index, patched (a bitset copy and bit flips,
 * or block copies of sorted ints); then the subsets the changed slots leave or join ({@link
 * ChangeList}), each with its size and content hash carried from the changes and its members the
 * AND of its values' patched index sets, computed when first read ({@link Subset#pending}); then
 * the next state, sharing everything else with the previous one. Costs the changes and the number
 * of subsets they touch, never the number of endpoints nor the size of a subset.
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
  // the dirty slots grouped by their change, in the order first seen
  private final Transition.Group transitions;
  // the working lists, kept by the index across patches
  private final PatchScratch scratch;
  private final IdentityHashMap<SlotSet, PatchScratch.Patched> patches;
  // the entries this patch touches, with their selectors (step 2)
  private final ChangeList<T> changes;
  // the index sets of the subset being made (see subsetOf)
  private final SlotSet[] sourceBuf;
  private final IntList liveOps;
  private final IntList slotBuf;
  // the index sets by key position and value id after the patch (rows copied when changed)
  private SlotSet[][] indexById;

  Patch(SubsetIndex<T> ix, SubsetState<T> prev, Node<T>[] bySlot, int[] dSlot, Endpoint[] dOld,
      Endpoint[] dNew, int[] dOldIds, int[] dNewIds, boolean[] dWeight, int epoch) {
    this.ix = ix;
    this.prev = prev;
    this.bySlot = bySlot;
    this.dSlot = dSlot;
    this.dOld = dOld;
    this.dNew = dNew;
    this.dWeight = dWeight;
    boolean w = false;
    for (boolean b : dWeight) {
      w |= b;
    }
    this.anyWeight = w;
    this.scratch = ix.patchScratch();
    this.patches = scratch.patches;
    this.sourceBuf = new SlotSet[ix.indexKeys.length];
    this.liveOps = scratch.liveOps;
    this.slotBuf = scratch.slotBuf;
    this.transitions = scratch.transitions;
    transitions.group(dSlot, dOld, dNew, dOldIds, dNewIds, dWeight);
    this.changes = new ChangeList<>(ix, transitions, scratch, epoch);
  }

  /** Runs the update and returns the next state. */
  SubsetState<T> run(List<Node<T>> nodes, boolean membership) {
    try {
      patchIndex();
      SlotSet live = membership ? patchLive() : prev.live;
      changes.list();
      return publish(nodes, live, membership, nextSubsets(live));
    } finally {
      scratch.lastTouched = changes.size;
      scratch.clear();
    }
  }

  /** 1. The index: the sets of changed key=value pairs, patched ({@link #indexById}). */
  private void patchIndex() {
    String[] keys = ix.indexKeys;
    // per index key, per value id: the transitions leaving or joining it (lists kept by the
    // scratch, emptied when first used by this patch)
    IntList[][] indexOps = new IntList[keys.length][];
    for (int t = 0; t < transitions.size(); t++) {
      Transition tr = transitions.get(t);
      if (PatchOps.isEmpty(tr.changed)) {
        continue; // a weight change only: no key=value set changes
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
          opsOf(indexOps[k], k, ov).add(PatchOps.op(t, false));
        }
        if (nv >= 0) {
          opsOf(indexOps[k], k, nv).add(PatchOps.op(t, true));
        }
      }
    }
    indexById = prev.indexById;
    for (int k = 0; k < keys.length; k++) {
      if (indexOps[k] == null) {
        continue;
      }
      if (indexById == prev.indexById) {
        indexById = Arrays.copyOf(prev.indexById, prev.indexById.length);
      }
      SlotSet[] row = Arrays.copyOf(prev.indexById[k],
          Math.max(prev.indexById[k].length, indexOps[k].length));
      indexById[k] = row;
      for (int id = 0; id < indexOps[k].length; id++) {
        IntList ops = indexOps[k][id];
        if (ops != null) {
          SlotSet set = patchIndexSet(row[id], ops);
          row[id] = set.isEmpty() ? null : set;
        }
      }
    }
  }

  /**
   * Returns an index set patched with the slots of transition ops. Each transition's slots all
   * leave (they had the value) or all join (they did not), so a bitset is copied once and its
   * bits flipped, the hash taking each transition's {@link Transition#mix}. A set of every
   * endpoint may be several keys' set at once, so it is patched once per equal change ({@link
   * #patchOnce}).
   */
  private SlotSet patchIndexSet(SlotSet old, IntList ops) {
    if (old == null || old.size() == prev.live.size()) {
      return patchOnce(old, ops);
    }
    if (!old.isDense()) {
      return patchSet(old, slotOps(ops, slotBuf, true));
    }
    long[] w = old.wordsCopy(ix.highWater);
    int size = old.size();
    long hash = old.hash;
    for (int m = 0; m < ops.size; m++) {
      int op = ops.values[m];
      Transition tr = transitions.get(op >>> 1);
      IntList slots = tr.slots;
      for (int q = 0; q < slots.size; q++) {
        int slot = slots.values[q];
        w[slot >>> 6] ^= 1L << slot;
      }
      size += (op & 1) != 0 ? slots.size : -slots.size;
      hash ^= tr.mix;
    }
    return SlotSet.ofWords(w, size, hash);
  }

  private SlotSet patchLive() {
    IntList ops = liveOps;
    for (int j = 0; j < dSlot.length; j++) {
      if (dNew[j] == null) {
        ops.add(PatchOps.op(dSlot[j], false));
      } else if (dOld[j] == null) {
        ops.add(PatchOps.op(dSlot[j], true));
      }
    }
    ops.sort();
    return patchSet(prev.live, ops);
  }

  /**
   * Returns the slot ops of transition ops: every slot of each transition, leaving or joining as
   * the transition op says; sorted when asked (a dense set takes them in any order, since each
   * slot is in one transition only). Written into {@code out}, cleared first.
   */
  private IntList slotOps(IntList transitionOps, IntList out, boolean sort) {
    out.clear();
    for (int m = 0; m < transitionOps.size; m++) {
      int op = transitionOps.values[m];
      IntList slots = transitions.get(op >>> 1).slots;
      boolean join = (op & 1) != 0;
      for (int q = 0; q < slots.size; q++) {
        out.add(PatchOps.op(slots.values[q], join));
      }
    }
    if (sort) {
      out.sort();
    }
    return out;
  }

  /**
   * 3. The touched subsets' new member sets, without reading their old members: the size and
   * hash follow from the transitions that leave and join ({@link ChangeList}), and the members
   * are the AND of the patched index sets of the subset's values ({@link #subsetOf}), computed
   * when first read. A reweighted subset is forgotten first, so that its members get a new
   * subset (a new child balancer). Returns each touched entry's next subset ({@code null}: the
   * entry is empty now), registered and counted.
   */
  private Subset<T>[] nextSubsets(SlotSet live) {
    Canon<T> canon = ix.canon;
    ComboMap.Entry<T>[] touched = changes.entries;
    int nTouched = changes.size;
    if (anyWeight) {
      // Every subset holding a reweighted member is retired first, so that no new member set
      // finds it (its child balancer has the old weight): the all-endpoints and default
      // subsets, and the old subsets of the entries such a member leaves or stays in.
      canon.retire(prev.all);
      if (prev.defaultSubset != null && holdsReweighted(prev.defaultSubset)) {
        canon.retire(prev.defaultSubset);
      }
      for (int t = 0; t < nTouched; t++) {
        if (touched[t].reweighted) {
          canon.retire(touched[t].subset);
        }
      }
    }
    @SuppressWarnings("unchecked")
    Subset<T>[] next = new Subset[nTouched];
    for (int t = 0; t < nTouched; t++) {
      ComboMap.Entry<T> en = touched[t];
      int size = en.sizeDelta;
      long hash = en.hashDelta;
      if (en.subset != null) {
        size += en.subset.size();
        hash ^= en.subset.hash;
      }
      if (size > 0) {
        next[t] = subsetOf(changes.selectors[t], en.ids, size, hash, live);
        canon.acquire(next[t]);
      }
    }
    return next;
  }

  /**
   * Returns the registered subset of a selector's value ids {@code ids}, of the given size and
   * hash: the one of the index set of one of its values if that set is as large (it is then the
   * subset), else a pending one ({@link Subset#pending}) whose members are the intersection of
   * those sets that are not every endpoint.
   */
  private Subset<T> subsetOf(int selector, int[] ids, int size, long hash, SlotSet live) {
    int[] pos = ix.selectorKeyPos[selector];
    SlotSet[] sources = sourceBuf;
    int n = 0;
    for (int m = 0; m < pos.length; m++) {
      SlotSet set = indexSet(pos[m], ids[m]);
      if (set == null || set.size() < size) {
        throw new IllegalStateException("subset of " + size + " slots, but a value has "
            + (set == null ? 0 : set.size()));
      }
      if (set.size() == size) {
        assert set.hash == hash : "subset hash";
        return ix.canon.of(set, bySlot);
      }
      if (set.size() != live.size()) {
        sources[n++] = set;
      }
    }
    if (n < 2) {
      throw new IllegalStateException("subset of " + size + " slots from " + n + " smaller sets");
    }
    Subset<T> s = ix.canon.ofIntersection(size, hash, sources, n, bySlot);
    Arrays.fill(sources, 0, n, null);
    return s;
  }

  private SlotSet indexSet(int k, int id) {
    SlotSet[] row = indexById[k];
    return id < row.length ? row[id] : null;
  }

  /** 4. The next state: subsets shared by equal members, use counts moved from old to new. */
  private SubsetState<T> publish(List<Node<T>> nodes, SlotSet live, boolean membership,
      Subset<T>[] next) {
    Canon<T> canon = ix.canon;
    Subset<T> all = prev.all;
    if (membership || anyWeight) {
      all = live.isEmpty() ? null : canon.of(live, bySlot);
      canon.acquire(all);
      canon.release(prev.all);
    }
    Subset<T> dflt = defaultSubset(live);
    // Per selector: its subsets by table position, copied when only subsets change; or, once
    // labels appear or disappear, by labels (a new table is made from them).
    @SuppressWarnings("unchecked")
    Subset<T>[][] byPos = new Subset[ix.selectors.length][];
    @SuppressWarnings("unchecked")
    Map<RequestLabels, Subset<T>>[] byLabels = new Map[ix.selectors.length];
    for (int t = 0; t < changes.size; t++) {
      ComboMap.Entry<T> en = changes.entries[t];
      int i = changes.selectors[t];
      SelectorTable<T> old = prev.tables[i];
      canon.release(en.subset);
      boolean gone = next[t] == null;
      if (gone) {
        ix.combos[i].remove(en);
      }
      // An entry with labels is in the previous table (its position is found there); an entry
      // that appears or disappears, or (should that invariant ever break) one not found, makes
      // a new table from the labels.
      int at = byLabels[i] == null && !gone && en.labels != null ? positionIn(old, en) : -1;
      if (byLabels[i] == null && (gone ? en.labels != null : at < 0)) {
        byLabels[i] = old.toMap(byPos[i]);
      }
      if (!gone && en.labels == null) {
        String[] values = new String[en.ids.length];
        for (int m = 0; m < values.length; m++) {
          values[m] = ix.valueNames.get(ix.selectorKeyPos[i][m]).get(en.ids[m]);
        }
        en.labels = ix.labels(ix.selectors[i], values);
      }
      if (byLabels[i] != null) {
        if (gone) {
          if (en.labels != null) {
            byLabels[i].remove(en.labels);
          }
        } else {
          byLabels[i].put(en.labels, next[t]);
        }
      } else if (!gone) {
        if (byPos[i] == null) {
          byPos[i] = old.subsetsCopy();
        }
        byPos[i][at] = next[t];
      }
      en.subset = next[t];
    }
    @SuppressWarnings("unchecked")
    SelectorTable<T>[] tables = new SelectorTable[ix.selectors.length];
    for (int i = 0; i < tables.length; i++) {
      SelectorTable<T> old = prev.tables[i];
      tables[i] = byLabels[i] != null ? SelectorTable.of(old.keys, byLabels[i])
          : byPos[i] != null ? old.with(byPos[i]) : old;
    }
    return new SubsetState<>(ix, nodes, bySlot, indexById, live, tables, all, dflt);
  }

  /**
   * Returns where the entry's labels are in the table ({@link SelectorTable#indexOf}), or -1:
   * remembered by the entry for as long as the selector's tables keep the same layout.
   */
  private static int positionIn(SelectorTable<?> table, ComboMap.Entry<?> en) {
    Object layout = table.layout();
    if (en.tableLayout != layout) {
      en.tablePos = table.indexOf(en.labels);
      en.tableLayout = layout;
    }
    return en.tablePos;
  }

  /** Returns whether a dirty slot whose weight changed is a member of the subset. */
  private boolean holdsReweighted(Subset<T> s) {
    for (int j = 0; j < dSlot.length; j++) {
      if (dWeight[j] && dOld[j] != null && s.members().contains(dSlot[j])) {
        return true;
      }
    }
    return false;
  }

  /** The default subset: found again when a changed slot is or becomes one of its members. */
  private Subset<T> defaultSubset(SlotSet live) {
    Subset<T> dflt = prev.defaultSubset;
    if (ix.defaultKeys == null) {
      return dflt;
    }
    SlotSet bits = ix.intersect(indexById, live, ix.defaultKeys, ix.defaultValues, ix.highWater);
    if (dflt == null ? bits.isEmpty() : !PatchOps.touches(dflt.members(), bits, dSlot)) {
      return dflt;
    }
    Canon<T> canon = ix.canon;
    Subset<T> next = bits.isEmpty() ? null : canon.of(bits, bySlot);
    canon.acquire(next);
    canon.release(dflt);
    return next;
  }

  /**
   * Returns the set patched with the slots of transition ops, reusing the result of an earlier
   * patch of the same set with the same ops (transition ops are listed in transition order, so
   * equal lists mean equal changes); the result is kept for later ones.
   */
  private SlotSet patchOnce(SlotSet old, IntList ops) {
    PatchScratch.Patched done = old == null || patches.isEmpty() ? null : patches.get(old);
    if (done != null && done.ops().sameAs(ops)) {
      return done.result();
    }
    SlotSet next = patchSet(old, slotOps(ops, slotBuf, old == null || !old.isDense()));
    if (old != null && done == null) {
      patches.put(old, new PatchScratch.Patched(ops, next));
    }
    return next;
  }

  private SlotSet patchSet(SlotSet old, IntList sortedOps) {
    return SlotSet.patch(old, sortedOps.values, sortedOps.size, ix.highWater, ix.slotScratch());
  }

  private IntList opsOf(IntList[] byId, int k, int id) {
    IntList ops = byId[id];
    if (ops == null) {
      ops = scratch.indexOps(k, id);
      ops.clear();
      byId[id] = ops;
    }
    return ops;
  }
}

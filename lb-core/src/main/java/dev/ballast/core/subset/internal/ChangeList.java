package dev.ballast.core.subset.internal;

import java.util.Arrays;

/**
 * Step 2 of a {@link Patch}: which subsets of which selectors change. Lists each selector table
 * entry whose subset the changed slots leave, join or hold a reweighted member of, with what the
 * patch changes in it (its per-update fields: size and hash deltas, reweighted), in {@link
 * #entries} and {@link #selectors}, {@link #size} of them. Made and run once, on the updater's
 * thread.
 *
 * @param <T> the thing being balanced
 */
final class ChangeList<T> {

  /** The entries listed, {@link #size} of them first. */
  ComboMap.Entry<T>[] entries;
  /** The selector of each entry. */
  int[] selectors;
  /** How many entries are listed. */
  int size;

  private final SubsetIndex<T> ix;
  private final Transition.Group transitions;
  private final PatchScratch scratch;
  private final int epoch;

  /**
   * @param transitions the patch's changes, grouped
   * @param epoch the patch's number: entries listed by this patch are marked with it
   */
  ChangeList(SubsetIndex<T> ix, Transition.Group transitions, PatchScratch scratch, int epoch) {
    this.ix = ix;
    this.transitions = transitions;
    this.scratch = scratch;
    this.epoch = epoch;
    // Arrays of this patch (young), so that filling them costs no old-to-young write barrier;
    // sized by the last patch, so that a run of similar updates never grows them.
    int cap = Math.max(64, Math.min(scratch.lastTouched, 1 << 16));
    @SuppressWarnings("unchecked")
    ComboMap.Entry<T>[] e = new ComboMap.Entry[cap];
    this.entries = e;
    this.selectors = new int[cap];
  }

  /**
   * Lists the entries whose subsets change, with their changes. Dirty slots with the same change
   * (old and new value ids, weight or not) leave and join the same subsets, so each change (a
   * transition) is looked at once per selector, and the subsets its slots leave and join, found
   * straight from the value ids, take its slot count and hash ({@link Transition#mix}) into their
   * size and hash. An entry whose old subset holds a reweighted member is marked ({@code
   * reweighted}): that subset's child balancer has the old weight, so it is retired before any new
   * member set is registered, and an entry the member stays in gets a new subset with the same
   * members.
   *
   * <p>While there are at most 64 index keys and their value ids fit in 64 bits together
   * ({@link PatchScratch.Packed}; a key's bits follow from how many values it has had), each
   * transition's ids are packed into one word. For a selector whose keys span at most {@value
   * PatchScratch.Packed#MAX_BITS} bits of it, a combination is that word ANDed with the
   * selector's mask (and shifted down): the selector's changes are summed in arrays indexed by
   * it, and each combination they reach is looked up in the selector's {@link ComboMap} once.
   * Any other selector's changes look their entries up one by one ({@link #listByEntry}).
   */
  void list() {
    PatchScratch.Packed pk = scratch.packed(ix.valueNames);
    int nt = transitions.size();
    Transition[] trs = transitions.items();
    if (pk != null) {
      for (int t = 0; t < nt; t++) {
        Transition tr = trs[t];
        tr.oldPacked = pk.pack(tr.oldIds);
        tr.newPacked = pk.pack(tr.newIds);
      }
    }
    for (int i = 0; i < ix.selectors.length; i++) {
      long mask = pk == null ? 0 : pk.mask(ix.selectorKeyPos[i]);
      if (pk != null && PatchScratch.Packed.span(mask) <= PatchScratch.Packed.MAX_BITS) {
        listPacked(i, pk, mask);
      } else {
        listByEntry(i);
      }
    }
    if (pk != null) {
      pk.done();
    }
  }

  /** Lists selector {@code i}'s changes packed (see {@link #list}); {@code mask}: its keys. */
  private void listPacked(int i, PatchScratch.Packed pk, long mask) {
    int nt = transitions.size();
    Transition[] trs = transitions.items();
    int low = mask == 0 ? 0 : Long.numberOfTrailingZeros(mask);
    pk.prepare(PatchScratch.Packed.span(mask));
    int[] dSize = pk.size;
    long[] dHash = pk.hash;
    long[] bits = pk.touched;
    long[] rw = pk.reweighted;
    // (at most 64 index keys when packed: a selector's keys are one word)
    long k0 = ix.selectorKeyBits[i][0];
    for (int t = 0; t < nt; t++) {
      Transition tr = trs[t];
      boolean hasOld = (tr.oldHas0 & k0) == k0;
      boolean hasNew = (tr.newHas0 & k0) == k0;
      if (hasOld && hasNew && (tr.changed0 & k0) == 0) {
        if (tr.weight) {
          int at = (int) ((tr.newPacked & mask) >>> low);
          bits[at >>> 6] |= 1L << at;
          rw[at >>> 6] |= 1L << at;
        }
        continue;
      }
      int n = tr.slots.size;
      long mix = tr.mix;
      if (hasOld) {
        int at = (int) ((tr.oldPacked & mask) >>> low);
        dSize[at] -= n;
        dHash[at] ^= mix;
        bits[at >>> 6] |= 1L << at;
        if (tr.weight) {
          rw[at >>> 6] |= 1L << at;
        }
      }
      if (hasNew) {
        int at = (int) ((tr.newPacked & mask) >>> low);
        dSize[at] += n;
        dHash[at] ^= mix;
        bits[at >>> 6] |= 1L << at;
      }
    }
    // The selector's entries first (found through its map, without reading them), then their
    // changes written in a loop of its own, so that the misses on the entries overlap.
    ComboMap<T> cm = ix.combos[i];
    int[] pos = ix.selectorKeyPos[i];
    int first = size;
    int[] found = pk.found;
    for (int w = 0; w < pk.words; w++) {
      long word = bits[w];
      if (word == 0) {
        continue;
      }
      long rwWord = rw[w];
      bits[w] = 0;
      rw[w] = 0;
      do {
        int b = Long.numberOfTrailingZeros(word);
        int at = w << 6 | b;
        word &= word - 1;
        pk.unpack(at, low, pos);
        ComboMap.Entry<T> en = cm.get(pk.ids);
        // (each combination is reached once per selector, and each selector has its own map:
        // no entry is listed twice)
        found[size - first] = (rwWord >>> b & 1) != 0 ? ~at : at;
        append(en != null ? en : cm.add(pk.ids), i);
      } while (word != 0);
    }
    for (int t = first; t < size; t++) {
      ComboMap.Entry<T> en = entries[t];
      int at = found[t - first];
      en.touchedIn = epoch; // as touch() marks it: every listed entry is marked
      en.reweighted = at < 0;
      at = at < 0 ? ~at : at;
      en.sizeDelta = dSize[at];
      en.hashDelta = dHash[at];
      dSize[at] = 0;
      dHash[at] = 0;
      // only a combination that slots join can be new (the one-by-one listing would fail on
      // a missing entry that slots leave)
      assert en.subset != null || (en.sizeDelta > 0 && !en.reweighted) : "no entry left";
    }
  }

  /**
   * Lists selector {@code i}'s changes one by one (see {@link #list}): each change looks up the
   * entries it leaves and joins. For a selector whose keys span more than {@value
   * PatchScratch.Packed#MAX_BITS} bits of the packed layout, or any selector when there is no
   * packed layout.
   */
  private void listByEntry(int i) {
    int nt = transitions.size();
    Transition[] trs = transitions.items();
    long[] keys = ix.selectorKeyBits[i];
    ComboMap<T> cm = ix.combos[i];
    boolean oneWord = keys.length == 1;
    long k0 = keys[0];
    for (int t = 0; t < nt; t++) {
      Transition tr = trs[t];
      // in a subset of this selector before, after, and the same one (none of its keys changed)
      boolean hasOld;
      boolean hasNew;
      boolean same;
      if (oneWord) {
        hasOld = (tr.oldHas0 & k0) == k0;
        hasNew = (tr.newHas0 & k0) == k0;
        same = hasOld && hasNew && (tr.changed0 & k0) == 0;
      } else {
        hasOld = PatchOps.containsAll(tr.oldHas, keys);
        hasNew = PatchOps.containsAll(tr.newHas, keys);
        same = hasOld && hasNew && PatchOps.disjoint(tr.changed, keys);
      }
      if (same) {
        if (tr.weight) {
          touch(cm.get(tr.newIds), i).reweighted = true;
        }
        continue;
      }
      if (hasOld) {
        ComboMap.Entry<T> en = touch(cm.get(tr.oldIds), i);
        en.sizeDelta -= tr.slots.size;
        en.hashDelta ^= tr.mix;
        // its old subset holds the slots' old weights: not to be found for an equal set now
        en.reweighted |= tr.weight;
      }
      if (hasNew) {
        ComboMap.Entry<T> en = cm.get(tr.newIds);
        en = touch(en != null ? en : cm.add(tr.newIds), i);
        en.sizeDelta += tr.slots.size;
        en.hashDelta ^= tr.mix;
      }
    }
  }

  /** Lists the entry the first time this update touches it, with its changes cleared. */
  private ComboMap.Entry<T> touch(ComboMap.Entry<T> en, int selector) {
    if (en.touchedIn != epoch) {
      en.touchedIn = epoch;
      en.sizeDelta = 0;
      en.hashDelta = 0;
      en.reweighted = false;
      append(en, selector);
    }
    return en;
  }

  /** Appends the entry and its selector (reading nothing of the entry). */
  private void append(ComboMap.Entry<T> en, int selector) {
    if (size == entries.length) {
      entries = Arrays.copyOf(entries, size * 2);
      selectors = Arrays.copyOf(selectors, size * 2);
    }
    selectors[size] = selector;
    entries[size++] = en;
  }
}

package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.internal.PatchOps.IntList;
import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * The working lists of a patch, kept by the index and emptied after each patch, so that they
 * are not made again for every update. Updater thread only.
 *
 * <p>Between patches they keep no set, entry or endpoint, only their capacity; lists grown
 * past {@value #KEEP} elements by a big patch are made anew rather than kept (and, for the
 * map, cleared whole by every later patch).
 */
final class PatchScratch {
  private static final int KEEP = 1024;

  // Each set of every endpoint patched so far, with its ops and result: several keys' index
  // sets may be that one set, and with the same changes it is patched once.
  IdentityHashMap<SlotSet, Patched> patches;
  // the slots added and removed (sorted ops), for the all-endpoints subset
  IntList liveOps;
  // the slot ops of the set being patched
  IntList slotBuf;
  // per index key and value id, a list for the transitions leaving or joining its set
  private IntList[][] indexOps = new IntList[0][];
  final Transition.Group transitions;
  // how many entries the last patch touched: the next one sizes its arrays by it
  int lastTouched;

  /** @param nk how many index keys there are */
  PatchScratch(int nk) {
    transitions = new Transition.Group(nk);
    reset();
  }

  private void reset() {
    patches = new IdentityHashMap<>();
    liveOps = new IntList();
    slotBuf = new IntList();
  }

  /** Returns the kept op list of index key {@code k}, value id {@code id} (not cleared). */
  IntList indexOps(int k, int id) {
    if (k >= indexOps.length) {
      indexOps = Arrays.copyOf(indexOps, k + 1);
    }
    IntList[] row = indexOps[k];
    if (row == null || id >= row.length) {
      row = row == null ? new IntList[id + 1]
          : Arrays.copyOf(row, Math.max(id + 1, row.length * 2));
      indexOps[k] = row;
    }
    if (row[id] == null || row[id].values.length > KEEP) {
      row[id] = new IntList();
    }
    return row[id];
  }

  /** Empties every list, dropping the references to this patch's sets and entries. */
  void clear() {
    transitions.clear();
    if (patches.size() > 64 || liveOps.values.length > KEEP
        || slotBuf.values.length > KEEP) {
      reset();
      return;
    }
    if (!patches.isEmpty()) {
      patches.clear();
    }
    liveOps.clear();
    slotBuf.clear();
  }

  /** An index set's patch in this update: the transition ops and the result. */
  record Patched(IntList ops, SlotSet result) {}
}

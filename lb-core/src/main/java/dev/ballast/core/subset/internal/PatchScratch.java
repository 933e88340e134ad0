package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.internal.PatchOps.IntList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;

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

  // the arrays of the packed listing, kept at their largest (at most 4096 places)
  private Packed packed;

  /**
   * Returns the layout of packed value ids for a patch, given each index key's value names
   * (their count fixes the key's bits); or {@code null} when the keys need more than 64 bits
   * together, or there are more than 64 keys.
   */
  Packed packed(List<? extends List<?>> valueNames) {
    int nk = valueNames.size();
    if (nk > 64) {
      return null;
    }
    if (packed == null || packed.shift.length != nk) {
      packed = new Packed(nk);
    }
    int[] width = packed.width;
    for (int k = 0; k < nk; k++) {
      // ids 0 to count - 1; a key with one value takes no bit
      width[k] = 32 - Integer.numberOfLeadingZeros(Math.max(0, valueNames.get(k).size() - 1));
    }
    // Narrow keys low, wide ones high (then by position): a selector without a wide key spans
    // only low bits, so a key with thousands of values leaves the other selectors packed.
    int[] order = packed.order;
    for (int k = 0; k < nk; k++) {
      int j = k;
      while (j > 0 && width[order[j - 1]] > width[k]) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = k;
    }
    int bits = 0;
    for (int j = 0; j < nk; j++) {
      packed.shift[order[j]] = bits;
      bits += width[order[j]];
    }
    if (bits > 64) {
      return null;
    }
    packed.busy = true;
    return packed;
  }

  /**
   * Value ids packed into one word: index key {@code k}'s id at bits {@code shift[k]} to {@code
   * shift[k] + width[k] - 1}, narrow keys below wide ones. A selector's combination is the word
   * ANDed with the selector's {@link #mask} and shifted down by the mask's lowest bit: while the
   * mask spans at most {@value #MAX_BITS} bits, an index into this patch's arrays of
   * per-combination changes ({@link #prepare}). Those arrays are left empty (zero) after each
   * selector; {@link #ids} is a row to unpack a combination into. Updater thread only.
   */
  static final class Packed {
    /** The most bits a selector's mask may span to be listed packed: 4096 combinations. */
    static final int MAX_BITS = 12;

    final int[] shift;
    final int[] width;
    final int[] ids;
    private final int[] order;
    int[] size = new int[1];
    long[] hash = new long[1];
    long[] touched = new long[1];
    long[] reweighted = new long[1];
    /** One selector's combinations reached, in listing order ({@code ~at} when reweighted). */
    int[] found = new int[1];
    /** How many words of {@link #touched} and {@link #reweighted} a selector's combinations use. */
    int words;
    // from packed() to done(): a listing that did not finish may have left changes in the arrays
    private boolean busy;

    private Packed(int nk) {
      shift = new int[nk];
      width = new int[nk];
      order = new int[nk];
      ids = new int[nk];
    }

    /** Returns the bits the mask spans, from its lowest to its highest (0 for none). */
    static int span(long mask) {
      return mask == 0 ? 0
          : 64 - Long.numberOfLeadingZeros(mask) - Long.numberOfTrailingZeros(mask);
    }

    /**
     * Makes the arrays ready for the combinations of a mask spanning {@code span} bits (at most
     * {@value #MAX_BITS}): grown if smaller, and {@link #words} set. Read the arrays after this.
     */
    void prepare(int span) {
      int places = 1 << span;
      words = (places + 63) >>> 6;
      if (size.length < places) {
        size = new int[places];
        hash = new long[places];
        touched = new long[words];
        reweighted = new long[words];
        found = new int[places];
      }
    }

    /** Marks the listing finished: every array is empty again. */
    void done() {
      busy = false;
    }

    /** Returns the bits of the keys at index key positions {@code pos}. */
    long mask(int[] pos) {
      long m = 0;
      for (int k : pos) {
        m |= ((1L << width[k]) - 1) << shift[k];
      }
      return m;
    }

    /** Returns value ids packed by this layout ({@code null}, no endpoint, and -1 give 0). */
    long pack(int[] ids) {
      long p = 0;
      if (ids != null) {
        for (int k = 0; k < ids.length; k++) {
          p |= (long) Math.max(ids[k], 0) << shift[k];
        }
      }
      return p;
    }

    /**
     * Writes the ids of the keys at positions {@code pos} of combination {@code at} (a packed
     * word ANDed with their mask, shifted down by {@code low}) to {@link #ids}.
     */
    void unpack(int at, int low, int[] pos) {
      long word = (long) at << low;
      for (int k : pos) {
        ids[k] = (int) ((word >>> shift[k]) & ((1L << width[k]) - 1));
      }
    }
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
    if (packed != null && packed.busy) {
      packed = null; // a patch failed while listing: its arrays may hold changes
    }
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

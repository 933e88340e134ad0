package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.RequestLabels;
import java.util.Arrays;

/**
 * The updater's view of one selector's subsets, kept across incremental updates: value
 * combination (the value ids of the selector's keys) to its labels and subset. Open addressing
 * with linear probing, looked up straight from an endpoint's value ids, so grouping a changed
 * endpoint's slot under the subsets it leaves and joins allocates nothing. While the product of
 * the keys' value counts is small (at most {@value #DIRECT_LIMIT}), the entries are also kept
 * in an array indexed by the combination as a mixed-radix number, so a lookup is a few
 * multiplications and one array read, with no hashing or comparing. Not thread-safe.
 *
 * @param <T> the thing being balanced
 */
final class ComboMap<T> {

  /**
   * One value combination; the per-update fields are set when an update first lists it (reset,
   * or written whole by the packed listing).
   */
  static final class Entry<T> {
    final int[] ids;
    final int hash;
    /** The labels, made once; {@code null} for a combination new in this update until made. */
    RequestLabels labels;
    /** The subset, {@code null} for a combination new in this update. */
    Subset<T> subset;
    // per update: the update that last touched it, and what that update changes: how many
    // slots join less how many leave, the XOR of their hashes, and whether a member's weight
    // changed (same members, but a new child balancer)
    int touchedIn;
    int sizeDelta;
    long hashDelta;
    boolean reweighted;
    // where the labels were last found in the selector's table, and that table's layout
    int tablePos = -1;
    Object tableLayout;

    Entry(int[] ids, int hash) {
      this.ids = ids;
      this.hash = hash;
    }
  }

  /** The largest direct array, in entries. */
  static final int DIRECT_LIMIT = 4096;

  private final int[] pos;
  @SuppressWarnings("unchecked")
  private Entry<T>[] table = new Entry[8];
  private int size;
  // per key: the value ids below this have a place in the direct array
  private final int[] radix;
  // the entries by mixed-radix combination, or null once the product outgrew DIRECT_LIMIT
  private Entry<T>[] direct;

  /** @param pos the index key position of each of the selector's keys */
  ComboMap(int[] pos) {
    this.pos = pos;
    this.radix = new int[pos.length];
    resetDirect();
  }

  /** Returns the entry of the combination an endpoint has (its value ids by index key). */
  Entry<T> get(int[] slotIds) {
    Entry<T>[] d = direct;
    if (d != null) {
      int at = 0;
      for (int m = 0; m < pos.length; m++) {
        int id = slotIds[pos[m]];
        if (id < 0 || id >= radix[m]) {
          return null; // no entry has this value yet: every entry has a place
        }
        at = at * radix[m] + id;
      }
      return d[at];
    }
    int h = hash(slotIds);
    int mask = table.length - 1;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      Entry<T> e = table[i];
      if (e == null) {
        return null;
      }
      if (e.hash == h && matches(e.ids, slotIds)) {
        return e;
      }
    }
  }

  /** Adds the (absent) combination an endpoint has and returns its entry. */
  Entry<T> add(int[] slotIds) {
    int[] ids = new int[pos.length];
    for (int m = 0; m < pos.length; m++) {
      ids[m] = slotIds[pos[m]];
    }
    Entry<T> e = new Entry<>(ids, hash(slotIds));
    if ((size + 1) * 2 > table.length) {
      grow();
    }
    insert(e);
    size++;
    if (direct != null) {
      placeDirect(e);
    }
    return e;
  }

  /** Puts the entry in the direct array, first widening the radixes if a value id is new. */
  private void placeDirect(Entry<T> e) {
    boolean fits = true;
    for (int m = 0; m < pos.length; m++) {
      fits &= e.ids[m] < radix[m];
    }
    if (!fits) {
      // a key with a new value id gets room for twice as many values, so widening is rare
      long product = 1;
      for (int m = 0; m < pos.length; m++) {
        if (e.ids[m] >= radix[m]) {
          radix[m] = Math.max(e.ids[m] + 1, radix[m] * 2);
        }
        product *= radix[m];
      }
      if (product > DIRECT_LIMIT) {
        direct = null;
        return;
      }
      @SuppressWarnings("unchecked")
      Entry<T>[] d = new Entry[(int) product];
      direct = d;
      for (Entry<T> x : table) {
        if (x != null) {
          direct[directIndex(x)] = x;
        }
      }
      return;
    }
    direct[directIndex(e)] = e;
  }

  private int directIndex(Entry<T> e) {
    int at = 0;
    for (int m = 0; m < pos.length; m++) {
      at = at * radix[m] + e.ids[m];
    }
    return at;
  }

  @SuppressWarnings("unchecked")
  private void resetDirect() {
    Arrays.fill(radix, 1);
    direct = new Entry[1];
  }

  /** Removes the entry (backward-shift deletion, as {@link SlotMap} does). */
  void remove(Entry<T> e) {
    int mask = table.length - 1;
    int i = e.hash & mask;
    while (table[i] != e) {
      i = (i + 1) & mask;
    }
    size--;
    if (direct != null) {
      direct[directIndex(e)] = null;
    }
    int hole = i;
    for (int j = (hole + 1) & mask; table[j] != null; j = (j + 1) & mask) {
      int home = table[j].hash & mask;
      if (!SlotMap.staysAfterHole(home, hole, j)) {
        table[hole] = table[j];
        hole = j;
      }
    }
    table[hole] = null;
  }

  /**
   * Removes every entry. Keeps the table's capacity and the direct array's radixes: value ids
   * never change meaning, so a full build that adds the entries again reuses both.
   */
  void clear() {
    Arrays.fill(table, null);
    size = 0;
    if (direct != null) {
      Arrays.fill(direct, null);
    }
  }

  private void insert(Entry<T> e) {
    int mask = table.length - 1;
    int i = e.hash & mask;
    while (table[i] != null) {
      i = (i + 1) & mask;
    }
    table[i] = e;
  }

  @SuppressWarnings("unchecked")
  private void grow() {
    Entry<T>[] old = table;
    table = new Entry[old.length * 2];
    for (Entry<T> e : old) {
      if (e != null) {
        insert(e);
      }
    }
  }

  private boolean matches(int[] ids, int[] slotIds) {
    for (int m = 0; m < pos.length; m++) {
      if (ids[m] != slotIds[pos[m]]) {
        return false;
      }
    }
    return true;
  }

  private int hash(int[] slotIds) {
    int h = 1;
    for (int p : pos) {
      h = h * 31 + slotIds[p];
    }
    return (h ^ (h >>> 16)) * 0x9E3779B1 >>> 1;
  }
}

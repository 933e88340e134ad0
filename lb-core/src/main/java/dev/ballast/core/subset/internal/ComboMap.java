package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.RequestLabels;

/**
 * The updater's view of one selector's subsets, kept across incremental updates: value
 * combination (the value ids of the selector's keys) to its labels and subset. Open addressing
 * with linear probing, looked up straight from an endpoint's value ids, so grouping a changed
 * endpoint's slot under the subsets it leaves and joins allocates nothing. Not thread-safe.
 *
 * @param <T> the thing being balanced
 */
final class ComboMap<T> {

  /** One value combination; the per-update fields are reset when an update first touches it. */
  static final class Entry<T> {
    final int[] ids;
    final int hash;
    /** The labels, made once; {@code null} for a combination new in this update until made. */
    RequestLabels labels;
    /** The subset, {@code null} for a combination new in this update. */
    Subset<T> subset;
    // per update: the update that last touched it
    int touchedIn;
    boolean reweighted;
    final PatchOps.IntList ops = new PatchOps.IntList();
    Subset<T> next;

    Entry(int[] ids, int hash) {
      this.ids = ids;
      this.hash = hash;
    }
  }

  private final int[] pos;
  @SuppressWarnings("unchecked")
  private Entry<T>[] table = new Entry[8];
  private int size;

  /** @param pos the index key position of each of the selector's keys */
  ComboMap(int[] pos) {
    this.pos = pos;
  }

  /** Returns the entry of the combination an endpoint has (its value ids by index key). */
  Entry<T> get(int[] slotIds) {
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
    return e;
  }

  /** Removes the entry (backward-shift deletion, as {@link SlotMap} does). */
  void remove(Entry<T> e) {
    int mask = table.length - 1;
    int i = e.hash & mask;
    while (table[i] != e) {
      i = (i + 1) & mask;
    }
    size--;
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

  /** Removes every entry. */
  @SuppressWarnings("unchecked")
  void clear() {
    table = new Entry[8];
    size = 0;
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

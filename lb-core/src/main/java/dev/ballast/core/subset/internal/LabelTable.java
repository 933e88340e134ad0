package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.RequestLabels;
import java.util.function.BiConsumer;

/**
 * One selector's subsets by their labels: an immutable hash table with linear probing, keys and
 * values side by side in one array (a lookup reads one array, allocating nothing). An update
 * makes the next version with an {@link Editor}: one array copy, then its puts and removes,
 * where a {@code HashMap} copy would allocate a node per entry.
 *
 * @param <T> the thing being balanced
 */
public final class LabelTable<T> {

  private static final LabelTable<?> EMPTY = new LabelTable<>(new Object[2 * 4], 0);

  // [labels, subset] pairs; a null key is a free pair; at most half the pairs are used
  private final Object[] table;
  private final int size;

  private LabelTable(Object[] table, int size) {
    this.table = table;
    this.size = size;
  }

  /** Returns the empty table. */
  @SuppressWarnings("unchecked")
  static <T> LabelTable<T> empty() {
    return (LabelTable<T>) EMPTY;
  }

  /** Returns the subset with exactly these labels, or {@code null}. */
  @SuppressWarnings("unchecked")
  public Subset<T> get(RequestLabels labels) {
    Object[] t = table;
    int mask = (t.length >> 1) - 1;
    for (int i = home(labels, mask); ; i = (i + 1) & mask) {
      Object k = t[i << 1];
      if (k == null) {
        return null;
      }
      if (k == labels || k.equals(labels)) {
        return (Subset<T>) t[(i << 1) + 1];
      }
    }
  }

  /** Returns how many subsets there are. */
  public int size() {
    return size;
  }

  /** Calls {@code action} with each labels and subset, in no particular order. */
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<RequestLabels, Subset<T>> action) {
    for (int i = 0; i < table.length; i += 2) {
      if (table[i] != null) {
        action.accept((RequestLabels) table[i], (Subset<T>) table[i + 1]);
      }
    }
  }

  /** Returns an editor starting from this table's entries (copied on the first change). */
  Editor<T> edit() {
    return new Editor<>(table, size);
  }

  private static int home(Object labels, int mask) {
    int h = labels.hashCode();
    return ((h ^ (h >>> 16)) * 0x9E3779B1 >>> 1) & mask;
  }

  /** Makes a new table; not thread-safe, used once. */
  static final class Editor<T> {
    private Object[] table;
    private int size;
    private boolean owned;

    /** An editor of a new, empty table sized for {@code expected} entries. */
    Editor(int expected) {
      this(new Object[2 * Math.max(4, Integer.highestOneBit(Math.max(1, expected) * 4 - 1))], 0);
      owned = true;
    }

    private Editor(Object[] table, int size) {
      this.table = table;
      this.size = size;
    }

    /** Maps the labels to the subset, replacing any subset they had. */
    void put(RequestLabels labels, Subset<T> subset) {
      own();
      if ((size + 1) * 2 > table.length >> 1) {
        grow();
      }
      int mask = (table.length >> 1) - 1;
      for (int i = home(labels, mask); ; i = (i + 1) & mask) {
        Object k = table[i << 1];
        if (k == null) {
          table[i << 1] = labels;
          table[(i << 1) + 1] = subset;
          size++;
          return;
        }
        if (k.equals(labels)) {
          table[(i << 1) + 1] = subset;
          return;
        }
      }
    }

    /** Removes the labels and their subset, if present (backward-shift deletion). */
    void remove(RequestLabels labels) {
      int mask = (table.length >> 1) - 1;
      int i = home(labels, mask);
      for (; ; i = (i + 1) & mask) {
        Object k = table[i << 1];
        if (k == null) {
          return;
        }
        if (k.equals(labels)) {
          break;
        }
      }
      own();
      size--;
      int hole = i;
      for (int j = (hole + 1) & mask; table[j << 1] != null; j = (j + 1) & mask) {
        if (!SlotMap.staysAfterHole(home(table[j << 1], mask), hole, j)) {
          table[hole << 1] = table[j << 1];
          table[(hole << 1) + 1] = table[(j << 1) + 1];
          hole = j;
        }
      }
      table[hole << 1] = null;
      table[(hole << 1) + 1] = null;
    }

    /** Returns the table made; the editor must not be used after. */
    LabelTable<T> build() {
      return new LabelTable<>(table, size);
    }

    private void own() {
      if (!owned) {
        table = table.clone();
        owned = true;
      }
    }

    private void grow() {
      Object[] old = table;
      table = new Object[old.length * 2];
      int mask = (table.length >> 1) - 1;
      for (int p = 0; p < old.length; p += 2) {
        if (old[p] != null) {
          int i = home(old[p], mask);
          while (table[i << 1] != null) {
            i = (i + 1) & mask;
          }
          table[i << 1] = old[p];
          table[(i << 1) + 1] = old[p + 1];
        }
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    forEach((l, s) -> sb.append(sb.length() > 1 ? ", " : "").append(l).append('=')
        .append(s.size()).append(" members"));
    return sb.append('}').toString();
  }
}

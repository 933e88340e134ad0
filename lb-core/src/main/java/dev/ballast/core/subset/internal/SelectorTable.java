package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * One selector's subsets by their labels, immutable once published: an open-addressing table
 * (linear probing, at most half full) of labels, and the subsets in a parallel array. An update
 * that changes only which subset some labels have copies the subsets array and shares the
 * labels array; only labels that appear or disappear make a new table.
 *
 * @param <T> the thing being balanced
 */
public final class SelectorTable<T> {

  /** The selector's keys, sorted; shared by every subset's labels. */
  public final String[] keys;
  /** {@code Arrays.hashCode(keys)}, compared first on lookup. */
  public final int keysHash;
  // shared between the versions with the same labels; null where free
  private final RequestLabels[] labels;
  private final Subset<T>[] subsets;
  private final int size;
  // one per labels array, shared by the versions made with with(): see layout()
  private final Object layout;

  private SelectorTable(String[] keys, int keysHash, RequestLabels[] labels, Subset<T>[] subsets,
      int size, Object layout) {
    this.keys = keys;
    this.keysHash = keysHash;
    this.labels = labels;
    this.subsets = subsets;
    this.size = size;
    this.layout = layout;
  }

  /**
   * Returns the table of these subsets by their labels: only value combinations that some
   * endpoint has, never an empty subset.
   *
   * @param keys the selector's keys, sorted (the labels' keys)
   * @param labels the labels, each once, of the subset at the same index of {@code subsets}
   * @param subsets as many subsets as labels
   * @throws IllegalArgumentException if some labels are given twice
   */
  @SuppressWarnings("unchecked")
  static <T> SelectorTable<T> of(String[] keys, List<RequestLabels> labels,
      List<Subset<T>> subsets) {
    int capacity = Integer.highestOneBit(Math.max(2, labels.size() * 2 - 1)) * 2;
    RequestLabels[] ls = new RequestLabels[capacity];
    Subset<T>[] ss = new Subset[capacity];
    for (int i = 0; i < labels.size(); i++) {
      RequestLabels l = labels.get(i);
      int at = home(l, shift(capacity));
      while (ls[at] != null) {
        if (ls[at].equals(l)) {
          throw new IllegalArgumentException("labels " + l + " given twice");
        }
        at = (at + 1) & (capacity - 1);
      }
      ls[at] = l;
      ss[at] = subsets.get(i);
    }
    return new SelectorTable<>(keys, Arrays.hashCode(keys), ls, ss, labels.size(), new Object());
  }

  /** Returns the table of these subsets by their labels. */
  static <T> SelectorTable<T> of(String[] keys, Map<RequestLabels, Subset<T>> map) {
    List<RequestLabels> labels = new ArrayList<>(map.size());
    List<Subset<T>> subsets = new ArrayList<>(map.size());
    map.forEach((l, s) -> {
      labels.add(l);
      subsets.add(s);
    });
    return of(keys, labels, subsets);
  }

  /** Returns an empty table. */
  static <T> SelectorTable<T> empty(String[] keys) {
    return of(keys, List.of(), List.of());
  }

  /** Returns the shift that takes a 32-bit hash to a position in a table of this capacity. */
  private static int shift(int capacity) {
    return Integer.numberOfLeadingZeros(capacity) + 1;
  }

  /**
   * Returns the labels' home position: the top bits of the hash times the golden ratio
   * (Fibonacci hashing, Knuth, TAOCP vol. 3, 6.4). The labels of one table share their keys and
   * often differ in one value ({@code v1}, {@code v2}...), so their polynomial hash codes are
   * close together; taking their low bits as they are would pile them into long probe runs.
   */
  private static int home(RequestLabels l, int shift) {
    return (l.hashCode() * 0x9E3779B9) >>> shift;
  }

  /** Returns the subset of these labels, or {@code null} when there is none. Allocates nothing. */
  public Subset<T> get(RequestLabels l) {
    int at = indexOf(l);
    return at < 0 ? null : subsets[at];
  }

  /** Returns how many subsets there are. */
  public int size() {
    return size;
  }

  /** Calls {@code action} with each subset and its labels, in no particular order. */
  public void forEach(BiConsumer<RequestLabels, Subset<T>> action) {
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] != null) {
        action.accept(labels[i], subsets[i]);
      }
    }
  }

  /**
   * Returns a token of where the labels are: tables with the same token ({@link #with}) hold
   * every labels at the same position. A small object of its own, so that keeping it keeps no
   * old table's arrays alive.
   */
  Object layout() {
    return layout;
  }

  /** Returns the position of the labels in the table, or -1 when absent. */
  int indexOf(RequestLabels l) {
    RequestLabels[] ls = labels;
    int mask = ls.length - 1;
    for (int at = home(l, shift(ls.length)); ; at = (at + 1) & mask) {
      RequestLabels k = ls[at];
      if (k == null) {
        return -1;
      }
      if (k == l || k.equals(l)) {
        return at;
      }
    }
  }

  /**
   * Returns the subsets by labels, a new map: with the subsets of {@code byPos} (a changed
   * {@link #subsetsCopy}) if not {@code null}.
   */
  Map<RequestLabels, Subset<T>> toMap(Subset<T>[] byPos) {
    Subset<T>[] ss = byPos != null ? byPos : subsets;
    Map<RequestLabels, Subset<T>> map = new HashMap<>(Math.max(4, size * 2));
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] != null) {
        map.put(labels[i], ss[i]);
      }
    }
    return map;
  }

  /** Returns how many positions a lookup of these labels reads (for tests of the spread). */
  int probes(RequestLabels l) {
    int mask = labels.length - 1;
    int n = 1;
    for (int at = home(l, shift(labels.length)); labels[at] != null && !labels[at].equals(l);
        at = (at + 1) & mask) {
      n++;
    }
    return n;
  }

  /** Returns how many positions the table has: a power of two, at least twice the size. */
  int capacity() {
    return labels.length;
  }

  /** Returns a copy of the subsets by position, to change some and pass to {@link #with}. */
  Subset<T>[] subsetsCopy() {
    // Arrays.copyOf, not clone: an object array's clone takes a slow runtime call in C2
    return Arrays.copyOf(subsets, subsets.length);
  }

  /**
   * Returns the table with the same labels and these subsets by position (from {@link
   * #subsetsCopy}, no position left {@code null} that has labels).
   */
  SelectorTable<T> with(Subset<T>[] newSubsets) {
    return new SelectorTable<>(keys, keysHash, labels, newSubsets, size, layout);
  }
}

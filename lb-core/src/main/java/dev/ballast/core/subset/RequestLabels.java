package dev.ballast.core.subset;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * An immutable set of {@code key=value} labels that a request asks its endpoints to have, and
 * the identity of a subset ({@code zone=a, version=v2}).
 *
 * <p>Build one per kind of request and reuse it: it keeps its keys sorted and its hash codes
 * precomputed, so {@link SubsetSelector#pick(RequestLabels)} finds the subset without hashing
 * strings or allocating. Equality is by content: two instances with the same labels are equal.
 */
public final class RequestLabels {

  private static final RequestLabels EMPTY = new RequestLabels(new String[0], new String[0]);

  // Sorted by key; package-private for the selector's lookup.
  final String[] keys;
  final String[] values;
  final int keysHash;
  private final int hash;

  private RequestLabels(String[] keys, String[] values) {
    this.keys = keys;
    this.values = values;
    this.keysHash = Arrays.hashCode(keys);
    // Values combined with an odd 32-bit multiplier (the golden ratio's), not 31: label sets of
    // one selector differ only in their values, often in numbered ones ("v1", "v2"...), and a
    // base-31 sum of those string hashes collides in whole families.
    int h = keysHash;
    for (String v : values) {
      h = h * 0x9E3779B9 + v.hashCode();
    }
    this.hash = h ^ (h >>> 16);
  }

  /** Returns the empty label set, which matches no subset. */
  public static RequestLabels empty() {
    return EMPTY;
  }

  /**
   * Returns labels from alternating keys and values: {@code of("zone", "a", "version", "v2")}.
   *
   * @throws IllegalArgumentException if the count is odd, a key or value is empty, or a key is
   *     given twice
   */
  public static RequestLabels of(String... keysAndValues) {
    Objects.requireNonNull(keysAndValues, "keysAndValues");
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keysAndValues: " + keysAndValues.length
          + " strings (expected: an even number, key then value)");
    }
    TreeMap<String, String> sorted = new TreeMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      put(sorted, keysAndValues[i], keysAndValues[i + 1]);
    }
    return fromSorted(sorted);
  }

  /**
   * Returns labels holding the entries of a map.
   *
   * @throws IllegalArgumentException if a key or value is empty
   */
  public static RequestLabels of(Map<String, String> labels) {
    Objects.requireNonNull(labels, "labels");
    TreeMap<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> e : labels.entrySet()) {
      put(sorted, e.getKey(), e.getValue());
    }
    return fromSorted(sorted);
  }

  /**
   * Returns labels from keys already sorted and distinct, and their values; for the selector,
   * which builds one per subset. The arrays are not copied.
   */
  static RequestLabels ofSorted(String[] sortedKeys, String[] values) {
    return new RequestLabels(sortedKeys, values);
  }

  private static void put(TreeMap<String, String> sorted, String key, String value) {
    Objects.requireNonNull(key, "label key");
    Objects.requireNonNull(value, "label value");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("label key: empty (expected: a non-empty key)");
    }
    if (value.isEmpty()) {
      throw new IllegalArgumentException(
          "label " + key + ": empty value (expected: a non-empty value)");
    }
    if (sorted.put(key, value) != null) {
      throw new IllegalArgumentException("label " + key + ": given twice");
    }
  }

  private static RequestLabels fromSorted(TreeMap<String, String> sorted) {
    if (sorted.isEmpty()) {
      return EMPTY;
    }
    String[] keys = sorted.keySet().toArray(new String[0]);
    String[] values = sorted.values().toArray(new String[0]);
    return new RequestLabels(keys, values);
  }

  /** Returns how many labels there are. */
  public int size() {
    return keys.length;
  }

  /** Returns whether there are no labels. */
  public boolean isEmpty() {
    return keys.length == 0;
  }

  /** Returns the {@code i}-th key in sorted order. */
  public String key(int i) {
    return keys[i];
  }

  /** Returns the value of the {@code i}-th key in sorted order. */
  public String value(int i) {
    return values[i];
  }

  /** Returns the value of a key, or {@code null} if there is no such label. */
  public String get(String key) {
    int i = Arrays.binarySearch(keys, key);
    return i >= 0 ? values[i] : null;
  }

  /** Returns whether an endpoint with these labels matches: it has every label of this set. */
  public boolean matches(Map<String, String> endpointLabels) {
    for (int i = 0; i < keys.length; i++) {
      if (!values[i].equals(endpointLabels.get(keys[i]))) {
        return false;
      }
    }
    return true;
  }

  /** Returns the labels as an unmodifiable map sorted by key (a new map on every call). */
  public Map<String, String> asMap() {
    TreeMap<String, String> m = new TreeMap<>();
    for (int i = 0; i < keys.length; i++) {
      m.put(keys[i], values[i]);
    }
    return Collections.unmodifiableSortedMap(m);
  }

  /** Returns whether both sets have the same keys, ignoring the values. */
  boolean sameKeys(String[] otherKeys) {
    return keys == otherKeys || Arrays.equals(keys, otherKeys);
  }

  @Override
  public boolean equals(Object o) {
    return this == o || o instanceof RequestLabels that && hash == that.hash
        && Arrays.equals(keys, that.keys) && Arrays.equals(values, that.values);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Returns {@code {key=value, ...}} in key order. */
  @Override
  public String toString() {
    StringJoiner text = new StringJoiner(", ", "{", "}");
    for (int i = 0; i < keys.length; i++) {
      text.add(keys[i] + "=" + values[i]);
    }
    return text.toString();
  }
}

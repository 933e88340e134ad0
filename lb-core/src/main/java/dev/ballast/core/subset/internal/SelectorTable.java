package dev.ballast.core.subset.internal;

import dev.ballast.core.subset.RequestLabels;
import java.util.Map;

/**
 * One selector's subsets by their labels, immutable once published.
 *
 * @param <T> the thing being balanced
 */
public final class SelectorTable<T> {

  /** The selector's keys, sorted; shared by every subset's labels. */
  public final String[] keys;
  /** {@code Arrays.hashCode(keys)}, compared first on lookup. */
  public final int keysHash;
  /** The subsets: only value combinations that some endpoint has; never empty subsets. */
  public final Map<RequestLabels, Subset<T>> subsets;

  SelectorTable(String[] keys, int keysHash, Map<RequestLabels, Subset<T>> subsets) {
    this.keys = keys;
    this.keysHash = keysHash;
    this.subsets = subsets;
  }
}

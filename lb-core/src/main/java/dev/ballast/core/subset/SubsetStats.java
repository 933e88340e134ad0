package dev.ballast.core.subset;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A point-in-time view of a {@link SubsetSelector}: its subsets and their sizes, and how many
 * picks missed every subset or fell back. Made by {@link SubsetSelector#stats()}.
 */
public final class SubsetStats {

  private final int endpoints;
  private final List<SubsetInfo> subsets;
  private final int childBalancers;
  private final int defaultSubsetSize;
  private final long misses;
  private final long fallbacks;
  private final long fullBuilds;
  private final long incrementalUpdates;

  SubsetStats(int endpoints, List<SubsetInfo> subsets, int childBalancers, int defaultSubsetSize,
      long misses, long fallbacks, long fullBuilds, long incrementalUpdates) {
    this.endpoints = endpoints;
    this.subsets = List.copyOf(subsets);
    this.childBalancers = childBalancers;
    this.defaultSubsetSize = defaultSubsetSize;
    this.misses = misses;
    this.fallbacks = fallbacks;
    this.fullBuilds = fullBuilds;
    this.incrementalUpdates = incrementalUpdates;
  }

  /** Summarises a selector's state: subsets by their labels' text, selector by selector. */
  static <T> SubsetStats of(SubsetState<T> s, boolean hasDefaultSubset, long misses,
      long fallbacks, SubsetIndex<T> index) {
    List<SubsetInfo> infos = new ArrayList<>();
    Set<Subset<T>> distinct = new HashSet<>();
    for (SubsetState.Table<T> t : s.tables()) {
      Map<String, SubsetInfo> sorted = new TreeMap<>();
      t.subsets().forEach((l, x) -> sorted.put("" + l, new SubsetInfo(l, x.size)));
      infos.addAll(sorted.values());
      distinct.addAll(t.subsets().values());
    }
    Subset<T> f = s.fallback();
    if (f != null) {
      distinct.add(f);
    }
    int dflt = f != null && hasDefaultSubset ? f.size : 0;
    return new SubsetStats(s.nodes().size(), infos, distinct.size(), dflt, misses, fallbacks,
        index.fullBuilds, index.incrementalUpdates);
  }

  /** Returns how many endpoints the selector holds. */
  public int endpoints() {
    return endpoints;
  }

  /** Returns how many subsets there are (non-empty value combinations, over all selectors). */
  public int subsetCount() {
    return subsets.size();
  }

  /** Returns each subset's labels and size, selector by selector in configuration order. */
  public List<SubsetInfo> subsets() {
    return subsets;
  }

  /**
   * Returns how many distinct member sets the subsets (and the fallback sets) have: subsets with
   * the same members share one child balancer.
   */
  public int distinctMemberSets() {
    return childBalancers;
  }

  /** Returns the size of the default subset; 0 when not configured or when nothing matches. */
  public int defaultSubsetSize() {
    return defaultSubsetSize;
  }

  /** Returns how many picks matched no subset (whatever the fallback then did). */
  public long misses() {
    return misses;
  }

  /** Returns how many of the {@linkplain #misses() misses} the fallback policy served. */
  public long fallbacks() {
    return fallbacks;
  }

  /** Returns how many updates rebuilt every subset. */
  public long fullBuilds() {
    return fullBuilds;
  }

  /** Returns how many updates rebuilt only the subsets their changes touched. */
  public long incrementalUpdates() {
    return incrementalUpdates;
  }

  @Override
  public String toString() {
    return "SubsetStats{endpoints=" + endpoints + ", subsets=" + subsets.size()
        + ", distinctMemberSets=" + childBalancers + ", defaultSubsetSize=" + defaultSubsetSize
        + ", misses=" + misses + ", fallbacks=" + fallbacks + ", fullBuilds=" + fullBuilds
        + ", incrementalUpdates=" + incrementalUpdates + "}";
  }

  /** One subset: its labels and how many endpoints it has. */
  public static final class SubsetInfo {
    private final RequestLabels labels;
    private final int endpoints;

    SubsetInfo(RequestLabels labels, int endpoints) {
      this.labels = Objects.requireNonNull(labels, "labels");
      this.endpoints = endpoints;
    }

    /** Returns the subset's labels (one value per key of its selector). */
    public RequestLabels labels() {
      return labels;
    }

    /** Returns how many endpoints the subset has, at least 1. */
    public int endpoints() {
      return endpoints;
    }

    @Override
    public String toString() {
      return labels + "=" + endpoints;
    }
  }
}

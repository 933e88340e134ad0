package dev.ballast.core.subset.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One immutable version of a selector: the nodes, the inverted index, the subset tables and the
 * fallback subsets. Picks read it from a volatile field; an update builds the next one and swaps
 * it in, sharing every part that did not change.
 *
 * @param <T> the thing being balanced
 */
public final class SubsetState<T> {

  private static final Object MISS = new Object();

  /** The nodes in the order of the update that made this state. */
  public final List<Node<T>> nodes;
  /** The subset tables, one per selector, in the order the selectors were configured. */
  public final SelectorTable<T>[] tables;
  /** Every endpoint, or {@code null} when there is none. */
  public final Subset<T> all;
  /** The default subset, or {@code null} when not configured or no endpoint has its labels. */
  public final Subset<T> defaultSubset;

  final Node<T>[] bySlot;
  // the index: key=value sets by index key position and value id (null: no endpoint has it; a
  // row may be shorter than the key's value ids)
  final SlotSet[][] indexById;
  final SlotSet live;
  private final SubsetIndex<T> owner;
  private final Function<RequestLabels, Object> resolver = this::resolveUncached;
  private volatile Cache<RequestLabels, Object> cache;

  SubsetState(SubsetIndex<T> owner, List<Node<T>> nodes, Node<T>[] bySlot,
      SlotSet[][] indexById, SlotSet live,
      SelectorTable<T>[] tables, Subset<T> all, Subset<T> defaultSubset) {
    this.owner = owner;
    this.nodes = nodes;
    this.bySlot = bySlot;
    this.indexById = indexById;
    this.live = live;
    this.tables = tables;
    this.all = all;
    this.defaultSubset = defaultSubset;
  }

  /**
   * Resolves labels that are not exactly a selector's keys (redundant keys allowed): labels whose
   * key no selector has are dropped; the endpoints having all the remaining labels form the
   * subset, found by intersecting their slot sets once and cached until the next update.
   *
   * @return the subset, or {@code null} when no endpoint matches
   */
  @SuppressWarnings("unchecked")
  public Subset<T> resolve(RequestLabels labels) {
    Cache<RequestLabels, Object> c = cache;
    if (c == null) {
      c = makeCache();
    }
    Object r = c.getIfPresent(labels);
    if (r == null) {
      r = c.get(labels, resolver);
    }
    return r == MISS ? null : (Subset<T>) r;
  }

  /** Returns how many label sets have been resolved by intersection and cached. */
  public long cachedResolutions() {
    Cache<RequestLabels, Object> c = cache;
    return c == null ? 0 : c.estimatedSize();
  }

  private synchronized Cache<RequestLabels, Object> makeCache() {
    Cache<RequestLabels, Object> c = cache;
    if (c == null) {
      c = Caffeine.newBuilder().maximumSize(owner.cacheSize()).executor(Runnable::run).build();
      cache = c;
    }
    return c;
  }

  private Object resolveUncached(RequestLabels labels) {
    List<String> keys = new ArrayList<>(labels.size());
    List<String> values = new ArrayList<>(labels.size());
    for (int i = 0; i < labels.size(); i++) {
      if (owner.isSelectorKey(labels.key(i))) {
        keys.add(labels.key(i));
        values.add(labels.value(i));
      }
    }
    if (keys.isEmpty()) {
      return MISS;
    }
    String[] k = keys.toArray(new String[0]);
    String[] v = values.toArray(new String[0]);
    for (SelectorTable<T> t : tables) {
      if (java.util.Arrays.equals(t.keys, k)) {
        Subset<T> s = t.get(owner.labels(t.keys, v));
        return s == null ? MISS : s;
      }
    }
    SlotSet members = owner.intersect(indexById, live, k, v, bySlot.length);
    if (members.isEmpty()) {
      return MISS;
    }
    return owner.newSubset(members, bySlot);
  }
}

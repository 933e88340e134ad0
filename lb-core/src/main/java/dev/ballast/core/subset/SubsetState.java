package dev.ballast.core.subset;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * One immutable version of a selector: the nodes, the index, the subset tables and the fallback
 * subsets. Picks read it from a volatile field; an update makes the next one and swaps it in,
 * sharing every part that did not change.
 *
 * @param <T> the thing being balanced
 */
final class SubsetState<T> {

  /** One selector's subsets by their labels; the map is never modified once published. */
  record Table<T>(String[] keys, int keysHash, Map<RequestLabels, Subset<T>> subsets) {}

  private static final Object MISS = new Object();

  /** The nodes in the order of the updates that made this state. */
  final List<Node<T>> nodes;
  /** The nodes and their weights by slot ({@code null} and 0 at a free slot). */
  final Node<T>[] bySlot;
  final int[] weights;
  /**
   * The index: {@code index[k][id]} holds the slots whose endpoint has index key {@code k} with
   * the value of id {@code id}; {@code null} when none has (a row may be shorter than the key's
   * value ids). Never modified: an update copies the sets and rows it changes.
   */
  final BitSet[][] index;
  /** The slots in use. */
  final BitSet live;
  /** The subset tables, one per selector, in the order the selectors were configured. */
  final Table<T>[] tables;
  /** Every endpoint, if the fallback policy is ANY_ENDPOINT and there are endpoints; else null. */
  final Subset<T> all;
  /** The default subset, if the fallback policy uses it and some endpoint has its labels. */
  final Subset<T> defaultSubset;
  private final SubsetIndex<T> owner;
  private volatile Cache<RequestLabels, Object> cache;

  SubsetState(SubsetIndex<T> owner, List<Node<T>> nodes, Node<T>[] bySlot, int[] weights,
      BitSet[][] index, BitSet live, Table<T>[] tables, Subset<T> all, Subset<T> defaultSubset) {
    this.owner = owner;
    this.nodes = nodes;
    this.bySlot = bySlot;
    this.weights = weights;
    this.index = index;
    this.live = live;
    this.tables = tables;
    this.all = all;
    this.defaultSubset = defaultSubset;
  }

  /**
   * Resolves labels that are not exactly a selector's keys (redundant keys allowed): labels whose
   * key no selector has are dropped; the endpoints having all the others form the subset, found
   * by intersecting their index sets once and cached until the next update.
   *
   * @return the subset, or {@code null} when no endpoint matches
   */
  @SuppressWarnings("unchecked")
  Subset<T> resolve(RequestLabels labels) {
    Cache<RequestLabels, Object> c = cache;
    if (c == null) {
      c = makeCache();
    }
    Object r = c.getIfPresent(labels);
    if (r == null) {
      r = c.get(labels, this::resolveUncached);
    }
    return r == MISS ? null : (Subset<T>) r;
  }

  private synchronized Cache<RequestLabels, Object> makeCache() {
    Cache<RequestLabels, Object> c = cache;
    if (c == null) {
      c = Caffeine.newBuilder().maximumSize(owner.cacheSize).executor(Runnable::run).build();
      cache = c;
    }
    return c;
  }

  private Object resolveUncached(RequestLabels labels) {
    List<String> keys = new ArrayList<>(labels.size());
    List<String> values = new ArrayList<>(labels.size());
    for (int i = 0; i < labels.size(); i++) {
      if (owner.selectorKeys.contains(labels.key(i))) {
        keys.add(labels.key(i));
        values.add(labels.value(i));
      }
    }
    if (keys.isEmpty()) {
      return MISS;
    }
    String[] k = keys.toArray(new String[0]);
    String[] v = values.toArray(new String[0]);
    for (Table<T> t : tables) {
      if (Arrays.equals(t.keys(), k)) {
        Subset<T> s = t.subsets().get(RequestLabels.ofSorted(t.keys(), v));
        return s == null ? MISS : s;
      }
    }
    BitSet members = owner.matching(index, live, k, v);
    if (members.isEmpty()) {
      return MISS;
    }
    // a set no update made: its child's algorithm checks it here, as an update would have
    Subset<T> s = new Subset<>(members, bySlot, weights, owner.factory);
    owner.validate(members, weights, slot -> bySlot[slot].endpoint());
    return s;
  }
}

package dev.ballast.core.subset;

import com.github.benmanes.caffeine.cache.Cache;
import dev.ballast.core.Node;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One immutable version of a selector, read by picks; an update makes the next one.
 *
 * @param owner the updater that made it
 * @param nodes the nodes, in the order of the updates that made this state
 * @param bySlot the nodes by slot ({@code null} at a free slot)
 * @param weights the nodes' weights by slot, as the update validated them for the subsets
 * @param index {@code index[k][id]} holds the slots whose endpoint has index key {@code k} with
 *     the value of id {@code id}; {@code null} when none has (a row may be shorter than the
 *     key's value ids). Never modified: an update copies the sets and rows it changes
 * @param live the slots in use
 * @param tables each selector's subsets by their labels, in configuration order
 * @param fallback the fallback policy's subset: every endpoint for ANY_ENDPOINT, the default
 *     subset for DEFAULT_SUBSET; null for NO_FALLBACK or when it has no member
 * @param cache subsets resolved for labels that are no selector's, until the next update (null
 *     unless redundant keys are allowed)
 * @param <T> the thing being balanced
 */
record SubsetState<T>(SubsetIndex<T> owner, List<Node<T>> nodes, Node<T>[] bySlot, int[] weights,
    BitSet[][] index, BitSet live, Table<T>[] tables, Subset<T> fallback,
    Cache<RequestLabels, Object> cache) {

  /** One selector's subsets by their labels; the map is never modified once published. */
  record Table<T>(String[] keys, int keysHash, Map<RequestLabels, Subset<T>> subsets) {}

  private static final Object MISS = new Object();

  /**
   * Returns the subset of the selector whose keys are exactly the labels', or, with redundant
   * keys allowed, the one {@link #resolve} finds; null on a miss. Lock-free; allocation-free for
   * labels whose keys are a selector's.
   */
  Subset<T> find(RequestLabels labels, boolean allowRedundantKeys) {
    int h = labels.keysHash;
    for (Table<T> t : tables) {
      if (t.keysHash() == h && labels.sameKeys(t.keys())) {
        return t.subsets().get(labels);
      }
    }
    return allowRedundantKeys && !labels.isEmpty() ? resolve(labels) : null;
  }

  /**
   * Returns the subset of labels that are not exactly a selector's keys (redundant keys allowed),
   * or null: the endpoints having every label whose key is a selector's (see {@link
   * SubsetSelector.Builder#allowRedundantKeys}), found once per state.
   */
  @SuppressWarnings("unchecked")
  Subset<T> resolve(RequestLabels labels) {
    Object r = cache.getIfPresent(labels);
    if (r == null) {
      r = cache.get(labels, this::resolveUncached);
    }
    return r == MISS ? null : (Subset<T>) r;
  }

  private Object resolveUncached(RequestLabels labels) {
    Map<String, String> kept = new TreeMap<>(labels.asMap());
    kept.keySet().retainAll(owner.selectorKeys);
    RequestLabels known = RequestLabels.of(kept);
    for (Table<T> t : tables) {
      if (known.sameKeys(t.keys())) {
        Subset<T> s = t.subsets().get(known);
        return s == null ? MISS : s;
      }
    }
    BitSet members = owner.matching(index, live, known.keys, known.values);
    if (known.isEmpty() || members.isEmpty()) {
      return MISS;
    }
    // a set no update made: the child balancers' algorithm checks it here, as an update would
    owner.validate(members, weights, slot -> bySlot[slot].endpoint());
    return new Subset<>(members);
  }
}

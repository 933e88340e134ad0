package dev.ballast.core.subset;

import dev.ballast.core.Balancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.internal.BalancerAccess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The updater's side of a {@link SubsetSelector}: a stable slot per address, each slot's endpoint
 * and value ids, and the update and delta that turn a change into the next {@link SubsetState}
 * (made by {@link NextState}). Not thread-safe: the selector serialises updates; picks read
 * published states only.
 *
 * <p>An address keeps its slot until it is removed, and freed slots are reused by later
 * updates, so a change of a few endpoints changes a few bits of the index. An update first
 * lists what changes ({@link Dirty}), then makes the next state, and only then makes the new
 * nodes' values and commits: a rejected update (an address twice, weights over {@link
 * Integer#MAX_VALUE}, a member set the child balancers' algorithm cannot hold, a value factory
 * that throws) gives back the slots and value ids it wrote and leaves everything as it was.
 *
 * @param <T> the thing being balanced
 */
final class SubsetIndex<T> {

  /**
   * An endpoint an update adds ({@code before} null), changes, or removes ({@code after} null),
   * with its value ids before the update ({@code null} when added).
   */
  record Dirty(int slot, Endpoint before, Endpoint after, int[] idsBefore) {
    boolean reweighted() {
      return before != null && after != null && before.weight() != after.weight();
    }
  }

  final Supplier<? extends Balancer<T>> factory;
  final Balancer<T> prototype;
  /** The index keys: the selectors' keys and the default subset's, sorted. */
  final String[] keys;
  final Map<String, Integer> keyPosition = new HashMap<>();
  final Set<String> selectorKeys;
  /** Each selector's keys, sorted, and their positions among the index keys. */
  final String[][] selectors;
  final int[][] selectorPositions;
  /** The default subset's labels, if the fallback policy uses it; else null. */
  final String[] defaultKeys;
  final String[] defaultValues;
  /** Whether the state keeps a subset of every endpoint (fallback policy ANY_ENDPOINT). */
  final boolean keepAll;
  final int cacheSize;
  private final double rebuildThreshold;
  // per index key: value -> id (read by any thread that resolves labels) and id -> value
  private final List<Map<String, Integer>> valueIds = new ArrayList<>();
  final List<List<String>> valueNames = new ArrayList<>();

  private final Map<String, Integer> slots = new HashMap<>();
  /** Each slot's endpoint ({@code null}: free) and value ids ({@code ids[key][slot]}, -1: none). */
  Endpoint[] endpoints = new Endpoint[16];
  int[][] ids;
  /** The slots ever used are below this. */
  int highWater;
  private int[] free = new int[16];
  private int freeCount;
  // the nodes' slots, in node order
  private int[] order = new int[0];
  private long totalWeight;
  long fullBuilds;
  long incrementalUpdates;
  SubsetState<T> state;

  SubsetIndex(Supplier<? extends Balancer<T>> factory, List<List<String>> selectorList,
      FallbackPolicy policy, RequestLabels defaultLabels, double rebuildThreshold, int cacheSize) {
    this.factory = factory;
    this.prototype = Objects.requireNonNull(factory.get(), "balancer factory returned null");
    TreeSet<String> all = new TreeSet<>();
    selectorList.forEach(all::addAll);
    this.selectorKeys = Set.copyOf(all);
    boolean dflt = policy == FallbackPolicy.DEFAULT_SUBSET;
    this.defaultKeys = dflt ? defaultLabels.keys : null;
    this.defaultValues = dflt ? defaultLabels.values : null;
    if (dflt) {
      all.addAll(Arrays.asList(defaultKeys));
    }
    this.keys = all.toArray(new String[0]);
    for (int k = 0; k < keys.length; k++) {
      keyPosition.put(keys[k], k);
      valueIds.add(new ConcurrentHashMap<>());
      valueNames.add(new ArrayList<>());
    }
    this.ids = new int[keys.length][16];
    this.selectors = new String[selectorList.size()][];
    this.selectorPositions = new int[selectors.length][];
    for (int i = 0; i < selectors.length; i++) {
      selectors[i] = new TreeSet<>(selectorList.get(i)).toArray(new String[0]);
      selectorPositions[i] = Arrays.stream(selectors[i]).mapToInt(keyPosition::get).toArray();
    }
    this.keepAll = policy == FallbackPolicy.ANY_ENDPOINT;
    this.rebuildThreshold = rebuildThreshold;
    this.cacheSize = cacheSize;
    @SuppressWarnings("unchecked")
    SubsetState.Table<T>[] tables = new SubsetState.Table[selectors.length];
    for (int i = 0; i < selectors.length; i++) {
      tables[i] = new SubsetState.Table<>(selectors[i], Arrays.hashCode(selectors[i]), Map.of());
    }
    @SuppressWarnings("unchecked")
    Node<T>[] none = new Node[0];
    this.state = new SubsetState<>(this, List.of(), none, new int[0],
        new BitSet[keys.length][0], new BitSet(), tables, null, null);
  }

  /** Replaces the endpoint set (see {@link SubsetSelector#update}); returns the removed nodes. */
  List<Node<T>> update(Collection<Endpoint> endpointSet,
      Function<? super Endpoint, ? extends T> values) {
    Endpoint[] es = endpointSet.toArray(new Endpoint[0]);
    int[] slotOf = new int[es.length];
    List<Dirty> dirty = new ArrayList<>();
    BitSet seen = new BitSet();
    int highWater0 = highWater;
    int freeCount0 = freeCount;
    try {
      for (int i = 0; i < es.length; i++) {
        Endpoint ep = Objects.requireNonNull(es[i], "endpoint");
        // registries tend to push the same list again: an address at its position in the
        // previous update takes its slot without hashing
        int guess = i < order.length ? order[i] : -1;
        boolean same = guess >= 0 && endpoints[guess].address().equals(ep.address());
        slotOf[i] = upsert(ep, same ? guess : -1, seen, dirty);
      }
      BitSet gone = (BitSet) seen.clone();
      gone.flip(0, highWater0);
      gone.and(state.live);
      Subset.forEach(gone, s -> dirty.add(new Dirty(s, endpoints[s], null, idsOf(s))));
      return publish(dirty, values, slotOf);
    } catch (RuntimeException | Error e) {
      rollback(dirty, highWater0, freeCount0);
      throw e;
    }
  }

  /** Applies a delta (see {@link SubsetSelector#apply}); returns the removed nodes. */
  List<Node<T>> apply(Collection<Endpoint> upserts, Collection<String> removedAddresses,
      Function<? super Endpoint, ? extends T> values) {
    Endpoint[] ups = upserts.toArray(new Endpoint[0]);
    String[] rms = removedAddresses.toArray(new String[0]);
    List<Dirty> dirty = new ArrayList<>();
    BitSet seen = new BitSet();
    Set<String> unknown = new HashSet<>();
    int highWater0 = highWater;
    int freeCount0 = freeCount;
    try {
      for (Endpoint ep : ups) {
        upsert(Objects.requireNonNull(ep, "upserted endpoint"), -1, seen, dirty);
      }
      for (String a : rms) {
        Integer slot = slots.get(Objects.requireNonNull(a, "removed address"));
        // an address not known is nothing to remove, but a repeat is still caught
        if (slot == null ? !unknown.add(a) : seen.get(slot)) {
          throw twice(a);
        }
        if (slot != null) {
          seen.set(slot);
          dirty.add(new Dirty(slot, endpoints[slot], null, idsOf(slot)));
        }
      }
      return publish(dirty, values, null);
    } catch (RuntimeException | Error e) {
      rollback(dirty, highWater0, freeCount0);
      throw e;
    }
  }

  /**
   * Finds the slot of an endpoint (at {@code guess} if not negative, else by address), taking a
   * free one for a new address, and lists the endpoint if it is new or changed.
   */
  private int upsert(Endpoint ep, int guess, BitSet seen, List<Dirty> dirty) {
    int slot = guess;
    if (slot < 0) {
      Integer known = slots.get(ep.address());
      slot = known == null ? -1 : known;
    }
    if (slot < 0) {
      slot = freeCount > 0 ? free[--freeCount] : highWater++;
      if (highWater > endpoints.length) {
        int cap = Math.max(highWater, endpoints.length * 2);
        endpoints = Arrays.copyOf(endpoints, cap);
        for (int k = 0; k < ids.length; k++) {
          ids[k] = Arrays.copyOf(ids[k], cap);
        }
      }
      dirty.add(new Dirty(slot, null, ep, null));
      slots.put(ep.address(), slot);
    } else if (seen.get(slot)) {
      throw twice(ep.address());
    } else if (!ep.equals(endpoints[slot])) {
      dirty.add(new Dirty(slot, endpoints[slot], ep, idsOf(slot)));
    }
    seen.set(slot);
    return slot;
  }

  private static IllegalArgumentException twice(String address) {
    return new IllegalArgumentException("address: " + address + " given twice");
  }

  private int[] idsOf(int slot) {
    int[] out = new int[keys.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = ids[k][slot];
    }
    return out;
  }

  /**
   * Makes and publishes the next state from the listed changes, {@code listOrder} giving the
   * nodes' slots in order ({@code null}: the previous order without the removed, then the added).
   */
  private List<Node<T>> publish(List<Dirty> dirty, Function<? super Endpoint, ? extends T> values,
      int[] listOrder) {
    SubsetState<T> prev = state;
    long sum = totalWeight;
    int added = 0;
    int removed = 0;
    boolean reweighted = false;
    for (Dirty d : dirty) {
      sum += (d.after == null ? 0 : d.after.weight()) - (d.before == null ? 0 : d.before.weight());
      added += d.before == null ? 1 : 0;
      removed += d.after == null ? 1 : 0;
      reweighted |= d.reweighted();
    }
    if (sum > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "weights: sum " + sum + " (expected: <= " + Integer.MAX_VALUE + ")");
    }
    for (Dirty d : dirty) {
      endpoints[d.slot] = d.after;
      if (d.after != null) {
        writeIds(d.slot, d.after, d.idsBefore);
      }
    }
    Node<T>[] bySlot = added + removed > 0 ? Arrays.copyOf(prev.bySlot, highWater) : prev.bySlot;
    int[] weights = added > 0 || reweighted ? Arrays.copyOf(prev.weights, highWater) : prev.weights;
    for (Dirty d : dirty) {
      if (d.after == null) {
        bySlot[d.slot] = null;
      } else if (d.before == null || d.reweighted()) {
        weights[d.slot] = d.after.weight();
      }
    }
    int[] nextOrder = listOrder != null ? listOrder : added + removed == 0 ? order
        : appendAdded(dirty, order.length - removed + added);
    if (dirty.isEmpty() && Arrays.equals(nextOrder, order)) {
      return List.of();
    }
    boolean full = prev.nodes.isEmpty()
        || dirty.size() > rebuildThreshold * (prev.nodes.size() + added);
    NextState<T> next = dirty.isEmpty() ? null
        : new NextState<>(this, prev, dirty, bySlot, weights, full);
    // Values only once everything is valid; a throwing factory leaves all untouched.
    for (Dirty d : dirty) {
      if (d.before == null) {
        bySlot[d.slot] = prototype.newNode(d.after, values.apply(d.after));
      }
    }
    List<Node<T>> nodes = prev.nodes;
    if (added + removed > 0 || !Arrays.equals(nextOrder, order)) {
      @SuppressWarnings("unchecked")
      Node<T>[] ordered = new Node[nextOrder.length];
      for (int i = 0; i < ordered.length; i++) {
        ordered[i] = bySlot[nextOrder[i]];
      }
      nodes = Collections.unmodifiableList(Arrays.asList(ordered));
    }
    // Commit: nothing below throws.
    List<Node<T>> gone = new ArrayList<>(removed);
    for (Dirty d : dirty) {
      if (d.after == null) {
        gone.add(prev.bySlot[d.slot]);
        slots.remove(d.before.address());
        if (freeCount == free.length) {
          free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = d.slot;
      } else if (d.before != null) {
        prototype.renew(bySlot[d.slot], d.after);
      }
    }
    order = nextOrder;
    totalWeight = sum;
    if (next == null) {
      state = new SubsetState<>(this, nodes, bySlot, weights, prev.index, prev.live, prev.tables,
          prev.all, prev.defaultSubset);
    } else {
      state = next.state(nodes);
      fullBuilds += full ? 1 : 0;
      incrementalUpdates += full ? 0 : 1;
    }
    return gone;
  }

  /** Returns the previous order without the removed slots, then the added ones in delta order. */
  private int[] appendAdded(List<Dirty> dirty, int n) {
    int[] out = new int[n];
    int m = 0;
    for (int s : order) {
      if (endpoints[s] != null) {
        out[m++] = s;
      }
    }
    for (Dirty d : dirty) {
      if (d.before == null) {
        out[m++] = d.slot;
      }
    }
    return out;
  }

  /** Undoes what a rejected update wrote: endpoints, value ids, slots taken. */
  private void rollback(List<Dirty> dirty, int highWater0, int freeCount0) {
    for (Dirty d : dirty) {
      endpoints[d.slot] = d.before;
      if (d.before == null) {
        slots.remove(d.after.address());
      } else {
        for (int k = 0; k < keys.length; k++) {
          ids[k][d.slot] = d.idsBefore[k];
        }
      }
    }
    highWater = highWater0;
    freeCount = freeCount0;
  }

  /**
   * Writes a slot's value ids from its endpoint's labels: one walk over the labels (sorted, as
   * the index keys are) beside the index keys, with no lookup for a value the slot had before.
   */
  private void writeIds(int slot, Endpoint ep, int[] before) {
    int n = ep.labelCount();
    int l = 0;
    for (int k = 0; k < keys.length; k++) {
      int c = 1;
      while (l < n && (c = ep.labelKey(l).compareTo(keys[k])) < 0) {
        l++; // a label that is no index key
      }
      int id = -1;
      if (l < n && c == 0) {
        String value = ep.labelValue(l++);
        int old = before == null ? -1 : before[k];
        id = old >= 0 && value.equals(valueNames.get(k).get(old)) ? old : valueId(k, value);
      }
      ids[k][slot] = id;
    }
  }

  /** Returns the id of a value of index key {@code k}, giving it the next id if new. */
  private int valueId(int k, String value) {
    Integer id = valueIds.get(k).get(value);
    if (id == null) {
      id = valueNames.get(k).size();
      valueNames.get(k).add(value);
      valueIds.get(k).put(value, id);
    }
    return id;
  }

  /**
   * Returns the slots having every {@code keys[i]=values[i]} in an index ({@code live} for no
   * labels), a new set or {@code live}. Safe on any thread: a value newer than the index has no
   * set in it.
   */
  BitSet matching(BitSet[][] index, BitSet live, String[] labelKeys, String[] labelValues) {
    BitSet out = null;
    for (int i = 0; i < labelKeys.length; i++) {
      Integer k = keyPosition.get(labelKeys[i]);
      Integer id = k == null ? null : valueIds.get(k).get(labelValues[i]);
      BitSet set = id == null || id >= index[k].length ? null : index[k][id];
      if (set == null) {
        return new BitSet();
      }
      if (out == null) {
        out = new BitSet();
        out.or(set);
      } else {
        out.and(set);
      }
    }
    return out == null ? live : out;
  }

  /**
   * Throws what the child balancers' algorithm would for a set of these members, given its
   * weights by slot and each slot's endpoint (whose addresses are distinct and whose weights'
   * sum fits an int: the update checked those).
   */
  void validate(BitSet members, int[] weights, IntFunction<Endpoint> endpointOf) {
    if (!BalancerAccess.limitsWeights(prototype)) {
      return;
    }
    int n = members.cardinality();
    Endpoint[] es = new Endpoint[n];
    int[] w = new int[n];
    int[] i = {0};
    Subset.forEach(members, s -> {
      es[i[0]] = endpointOf.apply(s);
      w[i[0]++] = weights[s];
    });
    BalancerAccess.validate(prototype, es, w);
  }
}

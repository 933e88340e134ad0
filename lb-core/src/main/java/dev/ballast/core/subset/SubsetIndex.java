package dev.ballast.core.subset;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ballast.core.Balancer;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
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
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The updater's side of a {@link SubsetSelector}: a slot per address (kept until removed, then
 * reused), each slot's endpoint and value ids, and the update and delta, which list what changes
 * ({@link Dirty}), make the next state ({@link NextState}), then make the new nodes and commit;
 * a rejected one undoes what it wrote. Not thread-safe: the selector serialises updates.
 *
 * @param <T> the thing being balanced
 */
final class SubsetIndex<T> {

  /**
   * An endpoint added ({@code before} null), changed, or removed ({@code after} null), and its
   * value ids by index key before and after (-1: none).
   */
  record Dirty(int slot, Endpoint before, Endpoint after, int[] idsBefore, int[] idsAfter) {
    boolean reweighted() {
      return before != null && after != null && before.weight() != after.weight();
    }
  }

  final Supplier<? extends Balancer<T>> factory;
  final ChildBalancer<T> prototype;
  /** The index keys (the selectors' and the default subset's, sorted), and their positions. */
  final String[] keys;
  final Map<String, Integer> keyPosition = new HashMap<>();
  final Set<String> selectorKeys;
  /** Each selector's keys' positions among the index keys, in the keys' order. */
  final int[][] selectorPositions;
  /** The default subset's labels if the fallback policy uses it, else null. */
  final RequestLabels defaultLabels;
  final boolean keepAll; // the fallback subset is every endpoint (ANY_ENDPOINT)
  private final int cacheSize; // 0: redundant keys not allowed, so no label is resolved
  private final double rebuildThreshold;
  // per index key: value -> id (also read by threads resolving labels) and id -> value
  private final List<Map<String, Integer>> valueIds = new ArrayList<>();
  final List<List<String>> valueNames = new ArrayList<>();
  private final int[] none; // no value for any key
  private final Map<String, Integer> slots = new HashMap<>();
  /** Each slot's endpoint (null: free) and value ids ({@code ids[key][slot]}; -1: none). */
  Endpoint[] endpoints = new Endpoint[16];
  int[][] ids;
  /** Every slot ever used is below this. */
  int highWater;
  private final BitSet used = new BitSet(); // the slots of the state and of the update running
  private int firstFree; // no slot below is free
  private int[] order = new int[0]; // the nodes' slots, in node order
  private long totalWeight;
  long fullBuilds;
  long incrementalUpdates;
  SubsetState<T> state;

  @SuppressWarnings("unchecked")
  SubsetIndex(Supplier<? extends Balancer<T>> factory, List<List<String>> selectorList,
      FallbackPolicy policy, RequestLabels defaultLabels, double rebuildThreshold, int cacheSize) {
    this.factory = factory;
    this.prototype = ChildBalancer.of(
        Objects.requireNonNull(factory.get(), "balancer factory returned null"));
    TreeSet<String> all = new TreeSet<>();
    selectorList.forEach(all::addAll);
    this.selectorKeys = Set.copyOf(all);
    this.defaultLabels = defaultLabels; // null unless the policy is DEFAULT_SUBSET
    all.addAll(defaultLabels == null ? Set.of() : defaultLabels.asMap().keySet());
    this.keys = all.toArray(new String[0]);
    this.ids = new int[keys.length][16];
    this.none = new int[keys.length];
    Arrays.fill(none, -1);
    for (int k = 0; k < keys.length; k++) {
      keyPosition.put(keys[k], k);
      valueIds.add(new ConcurrentHashMap<>());
      valueNames.add(new ArrayList<>());
    }
    this.selectorPositions = new int[selectorList.size()][];
    SubsetState.Table<T>[] tables = new SubsetState.Table[selectorPositions.length];
    for (int i = 0; i < tables.length; i++) {
      String[] selector = new TreeSet<>(selectorList.get(i)).toArray(new String[0]);
      selectorPositions[i] = Arrays.stream(selector).mapToInt(keyPosition::get).toArray();
      tables[i] = new SubsetState.Table<>(selector, Arrays.hashCode(selector), Map.of());
    }
    this.keepAll = policy == FallbackPolicy.ANY_ENDPOINT;
    this.rebuildThreshold = rebuildThreshold;
    this.cacheSize = cacheSize;
    this.state = new SubsetState<>(this, List.of(), new Node[0], new int[0],
        new BitSet[keys.length][0], new BitSet(), tables, null, newCache());
  }

  /** Returns a cache of resolved labels for a new state, or null if none is kept. */
  Cache<RequestLabels, Object> newCache() {
    return cacheSize == 0 ? null
        : Caffeine.newBuilder().maximumSize(cacheSize).executor(Runnable::run).build();
  }

  /** Replaces the endpoint set (see {@link SubsetSelector#update}); returns the removed nodes. */
  List<Node<T>> update(Collection<Endpoint> endpointSet,
      Function<? super Endpoint, ? extends T> values) {
    Endpoint[] es = endpointSet.toArray(new Endpoint[0]);
    int[] slotOf = new int[es.length];
    return change(values, slotOf, (dirty, seen) -> {
      for (int i = 0; i < es.length; i++) {
        Endpoint ep = Objects.requireNonNull(es[i], "endpoint");
        // registries tend to push the same list again: an address where it was in the previous
        // update takes its slot without hashing
        int at = i < order.length && endpoints[order[i]].address().equals(ep.address())
            ? order[i] : -1;
        slotOf[i] = upsert(ep, at, seen, dirty);
      }
      BitSet gone = new BitSet();
      gone.or(state.live());
      gone.andNot(seen);
      gone.stream().forEach(s -> dirty.add(new Dirty(s, endpoints[s], null, idsOf(s), none)));
    });
  }

  /** Applies a delta (see {@link SubsetSelector#apply}); returns the removed nodes. */
  List<Node<T>> apply(Collection<Endpoint> upserts, Collection<String> removedAddresses,
      Function<? super Endpoint, ? extends T> values) {
    Set<String> unknown = new HashSet<>();
    return change(values, null, (dirty, seen) -> {
      for (Endpoint ep : upserts.toArray(new Endpoint[0])) {
        upsert(Objects.requireNonNull(ep, "upserted endpoint"), -1, seen, dirty);
      }
      for (String a : removedAddresses.toArray(new String[0])) {
        Integer slot = slots.get(Objects.requireNonNull(a, "removed address"));
        // an address not known is nothing to remove, but a repeat is still caught
        if (slot == null ? !unknown.add(a) : seen.get(slot)) {
          throw twice(a);
        } else if (slot != null) {
          seen.set(slot);
          dirty.add(new Dirty(slot, endpoints[slot], null, idsOf(slot), none));
        }
      }
    });
  }

  /**
   * Returns the slot of an endpoint ({@code at} if not negative, else found by address; a free
   * one for a new address) and lists the endpoint if it is new or changed.
   */
  private int upsert(Endpoint ep, int at, BitSet seen, List<Dirty> dirty) {
    Integer known = at >= 0 ? null : slots.get(ep.address());
    int slot = at >= 0 ? at : known != null ? known : used.nextClearBit(firstFree);
    if (at < 0 && known == null) {
      used.set(slot);
      firstFree = slot + 1;
      highWater = Math.max(highWater, slot + 1);
      if (highWater > endpoints.length) {
        endpoints = Arrays.copyOf(endpoints, highWater * 2);
        Arrays.setAll(ids, k -> Arrays.copyOf(ids[k], highWater * 2));
      }
      dirty.add(new Dirty(slot, null, ep, none, idsOf(ep, none)));
      slots.put(ep.address(), slot);
    } else if (seen.get(slot)) {
      throw twice(ep.address());
    } else if (!ep.equals(endpoints[slot])) {
      int[] before = idsOf(slot);
      dirty.add(new Dirty(slot, endpoints[slot], ep, before, idsOf(ep, before)));
    }
    seen.set(slot);
    return slot;
  }

  private static IllegalArgumentException twice(String address) {
    return new IllegalArgumentException("address: " + address + " given twice");
  }

  /**
   * Makes and publishes the next state; {@code listOrder} gives the nodes' slots in order (null:
   * the previous order without the removed, then the added in delta order).
   */
  private List<Node<T>> publish(List<Dirty> dirty, Function<? super Endpoint, ? extends T> values,
      int[] listOrder) {
    SubsetState<T> prev = state;
    long sum = totalWeight + dirty.stream().mapToLong(d -> (d.after == null ? 0 : d.after.weight())
        - (d.before == null ? 0 : d.before.weight())).sum();
    int added = (int) dirty.stream().filter(d -> d.before == null).count();
    int removed = (int) dirty.stream().filter(d -> d.after == null).count();
    boolean reweighted = dirty.stream().anyMatch(Dirty::reweighted);
    if (sum > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "weights: sum " + sum + " (expected: <= " + Integer.MAX_VALUE + ")");
    }
    Node<T>[] bySlot =
        added + removed > 0 ? Arrays.copyOf(prev.bySlot(), highWater) : prev.bySlot();
    int[] weights =
        added > 0 || reweighted ? Arrays.copyOf(prev.weights(), highWater) : prev.weights();
    for (Dirty d : dirty) {
      endpoints[d.slot] = d.after;
      for (int k = 0; k < keys.length; k++) {
        ids[k][d.slot] = d.idsAfter[k];
      }
      if (d.after == null) {
        bySlot[d.slot] = null;
      } else if (d.before == null || d.reweighted()) {
        weights[d.slot] = d.after.weight();
      }
    }
    int[] nextOrder = listOrder != null ? listOrder : added + removed == 0 ? order
        : IntStream.concat(Arrays.stream(order).filter(s -> endpoints[s] != null),
            dirty.stream().filter(d -> d.before == null).mapToInt(Dirty::slot)).toArray();
    boolean sameOrder = Arrays.equals(nextOrder, order);
    if (dirty.isEmpty() && sameOrder) {
      return List.of();
    }
    boolean full = prev.nodes().isEmpty()
        || dirty.size() > rebuildThreshold * (prev.nodes().size() + added);
    NextState<T> next = new NextState<>(this, prev, dirty, weights, full);
    // Values only once everything is valid: a throwing factory leaves all untouched.
    for (Dirty d : dirty) {
      if (d.before == null) {
        bySlot[d.slot] = prototype.newNode(d.after, values.apply(d.after));
      }
    }
    // Commit: nothing below throws.
    List<Node<T>> gone = new ArrayList<>(removed);
    for (Dirty d : dirty) {
      if (d.after == null) {
        gone.add(prev.bySlot()[d.slot]);
        slots.remove(d.before.address());
        used.clear(d.slot);
        firstFree = Math.min(firstFree, d.slot);
      } else if (d.before != null) {
        prototype.renew(bySlot[d.slot], d.after);
      }
    }
    List<Node<T>> nodes = prev.nodes();
    if (added + removed > 0 || !sameOrder) {
      @SuppressWarnings("unchecked")
      Node<T>[] ordered = new Node[nextOrder.length];
      Arrays.setAll(ordered, i -> bySlot[nextOrder[i]]);
      nodes = Collections.unmodifiableList(Arrays.asList(ordered));
    }
    order = nextOrder;
    totalWeight = sum;
    fullBuilds += dirty.isEmpty() || !full ? 0 : 1;
    incrementalUpdates += dirty.isEmpty() || full ? 0 : 1;
    state = next.state(nodes, bySlot);
    next.warm(state);
    return gone;
  }

  /**
   * Lists an update's changes (into the list, with the slots seen), then publishes them; a
   * rejected update undoes what it wrote (endpoints, value ids, slots taken) and throws.
   */
  private List<Node<T>> change(Function<? super Endpoint, ? extends T> values, int[] listOrder,
      BiConsumer<List<Dirty>, BitSet> list) {
    List<Dirty> dirty = new ArrayList<>();
    try {
      list.accept(dirty, new BitSet());
      return publish(dirty, values, listOrder);
    } catch (RuntimeException | Error e) {
      for (Dirty d : dirty) {
        endpoints[d.slot] = d.before;
        for (int k = 0; k < keys.length; k++) {
          ids[k][d.slot] = d.idsBefore[k];
        }
        if (d.before == null) {
          slots.remove(d.after.address());
          used.clear(d.slot);
          firstFree = Math.min(firstFree, d.slot);
        }
      }
      throw e;
    }
  }

  private int[] idsOf(int slot) {
    int[] out = new int[keys.length];
    Arrays.setAll(out, k -> ids[k][slot]);
    return out;
  }

  /**
   * Returns an endpoint's value ids: one walk over its labels (sorted, as the index keys are)
   * beside the index keys, with no lookup for a value it had {@code before}.
   */
  private int[] idsOf(Endpoint ep, int[] before) {
    int[] out = new int[keys.length];
    for (int k = 0, l = 0, c = 1; k < keys.length; k++, c = 1) {
      while (l < ep.labelCount() && (c = ep.labelKey(l).compareTo(keys[k])) < 0) {
        l++; // a label that is no index key
      }
      String value = l < ep.labelCount() && c == 0 ? ep.labelValue(l++) : null;
      int old = before[k];
      out[k] = value == null ? -1
          : old >= 0 && value.equals(valueNames.get(k).get(old)) ? old : valueId(k, value);
    }
    return out;
  }

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
   * Returns the slots having every {@code labelKeys[i]=labelValues[i]} in an index, a new set
   * ({@code live} for no labels). Safe on any thread: a value newer than the index has no set.
   */
  BitSet matching(BitSet[][] index, BitSet live, String[] labelKeys, String[] labelValues) {
    BitSet out = new BitSet();
    out.or(live); // (not clone, which may write to the shared set)
    for (int i = 0; i < labelKeys.length; i++) {
      Integer k = keyPosition.get(labelKeys[i]);
      Integer id = k == null ? null : valueIds.get(k).get(labelValues[i]);
      BitSet set = id == null || id >= index[k].length ? null : index[k][id];
      out.and(set == null ? new BitSet() : set);
    }
    return out;
  }

  /**
   * Throws what the child balancers' algorithm would for a set of these members, given its
   * weights by slot and each slot's endpoint; their addresses are distinct and their weights'
   * sum fits an int (the update checked those). Reads nothing unless the algorithm has a rule.
   */
  void validate(BitSet members, int[] weights, IntFunction<Endpoint> endpointOf) {
    if (prototype.limitsWeights()) {
      prototype.validateMembers(members.stream().mapToObj(endpointOf)
          .toArray(Endpoint[]::new), members.stream().map(s -> weights[s]).toArray());
    }
  }
}

package dev.ballast.core.subset;

import dev.ballast.core.Node;
import dev.ballast.core.subset.SubsetIndex.Dirty;
import dev.ballast.core.subset.SubsetState.Table;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The next {@link SubsetState}, made from the previous one and an update's changes in the same
 * steps for every update:
 *
 * <ol>
 *   <li>The index: each {@code key=value} set that a changed endpoint leaves or joins is copied
 *       and its bits flipped; every other set is shared with the previous state.
 *   <li>The registry of member sets starts with the previous state's subsets, except those
 *       holding a reweighted endpoint (their child balancers have the old weight), so that a
 *       member set that did not change keeps its subset and child balancer.
 *   <li>The subsets. A full build (the first update, or one that changes more than the rebuild
 *       threshold) makes every value combination of every selector, key prefix by key prefix,
 *       prefixes shared between selectors (MOSN's inverted index). An incremental one makes only
 *       the combinations a changed endpoint leaves, joins or is reweighted in, each the AND of
 *       its values' sets, and shares the rest of each table.
 *   <li>The fallback subset; then the child balancers' algorithm checks every member set the
 *       update made ({@link SubsetIndex#validate}), before any node or value is made.
 * </ol>
 *
 * @param <T> the thing being balanced
 */
final class NextState<T> {

  /** A value combination of some keys: value ids by index key (set for those keys), members. */
  private record Combo(int[] ids, BitSet members, int size) {}

  /** A change of value ids by index key ({@code null}: no endpoint), reweighted or not. */
  private record Move(int[] before, int[] after, boolean reweighted) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Move m && m.reweighted == reweighted && Arrays.equals(m.before, before)
          && Arrays.equals(m.after, after);
    }

    @Override
    public int hashCode() {
      return (Arrays.hashCode(before) * 31 + Arrays.hashCode(after)) * 2 + (reweighted ? 1 : 0);
    }
  }

  private final SubsetIndex<T> ix;
  private final SubsetState<T> prev;
  private final Node<T>[] bySlot;
  private final int[] weights;
  private final BitSet[][] index;
  private final BitSet live;
  private final Table<T>[] tables;
  private final Subset<T> fallback;
  private final Map<Subset<T>, Subset<T>> registry = new HashMap<>();
  private final List<Subset<T>> made = new ArrayList<>();

  @SuppressWarnings("unchecked")
  NextState(SubsetIndex<T> ix, SubsetState<T> prev, List<Dirty> dirty, Node<T>[] bySlot,
      int[] weights, boolean full) {
    this.ix = ix;
    this.prev = prev;
    this.bySlot = bySlot;
    this.weights = weights;
    this.index = prev.index().clone();
    this.live = patchIndex(dirty);
    BitSet reweighted = new BitSet();
    dirty.forEach(d -> reweighted.set(d.slot(), d.reweighted()));
    List<Subset<T>> kept = new ArrayList<>(Collections.singleton(prev.fallback()));
    Arrays.stream(prev.tables()).forEach(t -> kept.addAll(t.subsets().values()));
    for (Subset<T> s : kept) {
      if (s != null && !s.members.intersects(reweighted)) {
        registry.putIfAbsent(s, s);
      }
    }
    this.tables = new Table[prev.tables().length];
    Set<Move> moves = new LinkedHashSet<>();
    dirty.forEach(d -> moves.add(new Move(d.idsBefore(), d.idsAfter(), d.reweighted())));
    Function<List<Integer>, List<Combo>> all = full ? allCombos() : null;
    for (int i = 0; i < tables.length; i++) {
      Table<T> old = prev.tables()[i];
      int selector = i;
      Map<RequestLabels, BitSet> changed = full ? new HashMap<>() : touched(i, moves);
      if (full) {
        all.apply(Arrays.stream(ix.selectorPositions[i]).boxed().toList())
            .forEach(c -> changed.put(labels(selector, c.ids), c.members));
      }
      Map<RequestLabels, Subset<T>> map = full ? new HashMap<>() : new HashMap<>(old.subsets());
      changed.forEach((labels, members) -> {
        Subset<T> s = subsetOf(members);
        if (s == null) {
          map.remove(labels);
        } else {
          map.put(labels, s);
        }
      });
      tables[i] = changed.isEmpty() && !full ? old : new Table<>(old.keys(), old.keysHash(), map);
    }
    this.fallback = ix.keepAll ? subsetOf(live) : ix.defaultKeys == null ? null
        : subsetOf(ix.matching(index, live, ix.defaultKeys, ix.defaultValues));
    for (Subset<T> s : made) {
      ix.validate(s.members, weights, slot -> ix.endpoints[slot]);
    }
  }

  /** Returns the state over these nodes. */
  SubsetState<T> state(List<Node<T>> nodes) {
    return new SubsetState<>(ix, nodes, bySlot, weights, index, live, tables, fallback,
        ix.newCache());
  }

  /** Returns the registered subset of these members, made if new; null if there are none. */
  private Subset<T> subsetOf(BitSet members) {
    if (members.isEmpty()) {
      return null;
    }
    Subset<T> s = new Subset<>(members, bySlot, weights, ix.factory);
    Subset<T> had = registry.putIfAbsent(s, s);
    if (had == null) {
      made.add(s);
    }
    return had == null ? s : had;
  }

  /** Step 1: the index sets the changes leave or join, copied and patched; returns live slots. */
  private BitSet patchIndex(List<Dirty> dirty) {
    Map<Long, BitSet> copies = new HashMap<>();
    BitSet slots = prev.live();
    for (Dirty d : dirty) {
      for (int k = 0; k < index.length; k++) {
        int was = d.idsBefore()[k];
        int is = d.idsAfter()[k];
        for (int id : was == is ? new int[0] : new int[] {was, is}) {
          if (id >= 0) {
            BitSet set = set(k, id);
            copies.computeIfAbsent((long) k << 32 | id, x -> and(set)).set(d.slot(), id == is);
          }
        }
      }
      if (d.before() == null || d.after() == null) {
        slots = slots == prev.live() ? and(slots) : slots;
        slots.set(d.slot(), d.after() != null);
      }
    }
    copies.forEach((key, set) -> {
      int k = (int) (key >>> 32);
      if (index[k] == prev.index()[k]) {
        index[k] = Arrays.copyOf(index[k], ix.valueNames.get(k).size());
      }
      index[k][key.intValue()] = set.isEmpty() ? null : set;
    });
    return slots;
  }

  /** Returns the index set of value {@code id} of key {@code k}, or null. */
  private BitSet set(int k, int id) {
    return id >= 0 && id < index[k].length ? index[k][id] : null;
  }

  /**
   * Returns a new set of the slots in {@code a} (null: none) and in each of {@code others}
   * (null: none), made by reading them only: a published set is never written.
   */
  private BitSet and(BitSet a, BitSet... others) {
    BitSet r = new BitSet(ix.highWater);
    r.or(a == null ? r : a);
    for (BitSet o : others) {
      r.and(o == null ? new BitSet() : o);
    }
    return r;
  }

  /**
   * Step 3, full: returns the combinations of a selector's keys. The keys are taken in one
   * global order (fewest values first) so that selectors share their prefixes.
   */
  private Function<List<Integer>, List<Combo>> allCombos() {
    int[] present = new int[index.length];
    Arrays.setAll(present, k -> (int) Arrays.stream(index[k]).filter(Objects::nonNull).count());
    Map<List<Integer>, List<Combo>> memo = new HashMap<>();
    int liveSize = live.cardinality();
    return keys -> combos(keys.stream().sorted(Comparator.<Integer>comparingInt(k -> present[k])
        .thenComparingInt(k -> k)).toList(), memo, liveSize, present);
  }

  /**
   * Returns the non-empty combinations of a key prefix: each of the shorter prefix's, ANDed with
   * each value set of the last key. A combination of every endpoint gives the value sets
   * themselves and a value every endpoint has gives the combination, so that constant labels
   * cost nothing. For a key of many values, the values found in a combination's members are
   * listed first: the ANDs then cost the combinations found, not the values times the
   * combinations.
   */
  private List<Combo> combos(List<Integer> prefix, Map<List<Integer>, List<Combo>> memo,
      int liveSize, int[] present) {
    List<Combo> done = memo.get(prefix);
    if (done != null) {
      return done;
    }
    int n = prefix.size();
    int k = prefix.get(n - 1);
    List<Combo> parents = n > 1 ? combos(prefix.subList(0, n - 1), memo, liveSize, present)
        : List.of(new Combo(new int[index.length], live, liveSize));
    long words = (ix.highWater + 63) / 64;
    List<Combo> out = new ArrayList<>();
    for (Combo p : parents) {
      BitSet found = new BitSet();
      // listing the values costs about as much per member as 8 words of AND
      if (present[k] * words > 8L * p.size && p.size < liveSize) {
        Subset.forEach(p.members, s -> found.set(Math.max(0, ix.ids[k][s]))); // (0: no value)
      } else {
        found.set(0, index[k].length);
      }
      for (int id = found.nextSetBit(0); id >= 0; id = found.nextSetBit(id + 1)) {
        BitSet v = index[k][id];
        int vSize = v == null ? 0 : v.cardinality();
        BitSet m = p.size == liveSize ? v : vSize == liveSize ? p.members : and(p.members, v);
        int size = m == v ? vSize : m == p.members ? p.size : m.cardinality();
        if (size > 0) {
          int[] ids = p.ids.clone();
          ids[k] = id;
          out.add(new Combo(ids, m, size));
        }
      }
    }
    memo.put(List.copyOf(prefix), out);
    return out;
  }

  /**
   * Step 3, incremental: the members of a selector's combinations that a move leaves, joins or
   * is reweighted in (changes with the same value ids before and after and the same reweight are
   * one move, taken once), each the AND of its values' patched sets.
   */
  private Map<RequestLabels, BitSet> touched(int selector, Set<Move> moves) {
    int[] pos = ix.selectorPositions[selector];
    Map<RequestLabels, BitSet> out = new HashMap<>();
    for (Move m : moves) {
      RequestLabels was = labels(selector, m.before);
      RequestLabels is = labels(selector, m.after);
      for (RequestLabels l : m.reweighted || !Objects.equals(was, is)
          ? new RequestLabels[] {was, is} : new RequestLabels[0]) {
        int[] ids = l == was ? m.before : m.after;
        if (l != null && !out.containsKey(l)) {
          out.put(l, and(live, Arrays.stream(pos).mapToObj(p -> set(p, ids[p]))
              .toArray(BitSet[]::new)));
        }
      }
    }
    return out;
  }

  /** Returns the labels of a selector's values among these ids; null if one is missing. */
  private RequestLabels labels(int selector, int[] ids) {
    int[] pos = ix.selectorPositions[selector];
    String[] values = new String[pos.length];
    for (int j = 0; j < pos.length; j++) {
      if (ids[pos[j]] < 0) {
        return null;
      }
      values[j] = ix.valueNames.get(pos[j]).get(ids[pos[j]]);
    }
    return RequestLabels.ofSorted(ix.selectors[selector], values);
  }
}

package dev.ballast.core.subset;

import dev.ballast.core.Node;
import dev.ballast.core.subset.SubsetIndex.Dirty;
import dev.ballast.core.subset.SubsetState.Table;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * The next {@link SubsetState}, made from the previous one and an update's changes, in the steps
 * the package description gives: index patched, registry of member sets seeded, subsets made
 * (all, or the touched ones), fallback subset, and each new member set validated.
 *
 * @param <T> the thing being balanced
 */
final class NextState<T> {

  /** A value combination of some keys: value ids by index key (set for those keys), members. */
  private record Combo(int[] ids, BitSet members) {}

  private final SubsetIndex<T> ix;
  private final SubsetState<T> prev;
  private final int[] weights;
  private final BitSet[][] index;
  private final BitSet live;
  private final Table<T>[] tables;
  private final Subset<T> fallback;
  private final Map<Subset<T>, Subset<T>> registry = new HashMap<>();
  private final Map<BitSet, Boolean> full = new IdentityHashMap<>(); // has every live slot
  // new subsets that replace one whose child balancer was made (in use): made by the update
  private final List<Subset<T>> warm = new ArrayList<>();

  @SuppressWarnings("unchecked")
  NextState(SubsetIndex<T> ix, SubsetState<T> prev, List<Dirty> dirty, int[] weights,
      boolean full) {
    this.ix = ix;
    this.prev = prev;
    this.weights = weights;
    this.index = prev.index().clone();
    this.live = patchIndex(dirty);
    BitSet reweighted = new BitSet();
    dirty.forEach(d -> reweighted.set(d.slot(), d.reweighted()));
    Stream.concat(Stream.of(prev.fallback()),
            Arrays.stream(prev.tables()).flatMap(t -> t.subsets().values().stream()))
        .filter(s -> s != null && !s.members.intersects(reweighted))
        .forEach(s -> registry.putIfAbsent(s, s));
    this.tables = new Table[prev.tables().length];
    // changes with the same value ids before and after, and the same reweight, are one move (an
    // IntBuffer is an int array with equality by content)
    Map<List<Object>, Dirty> moves = new LinkedHashMap<>();
    dirty.forEach(d -> moves.putIfAbsent(List.of(IntBuffer.wrap(d.idsBefore()),
        IntBuffer.wrap(d.idsAfter()), d.reweighted()), d));
    IntFunction<Map<RequestLabels, BitSet>> all = full ? allCombos() : null;
    for (int i = 0; i < tables.length; i++) {
      Table<T> old = prev.tables()[i];
      Map<RequestLabels, BitSet> changed = full ? all.apply(i) : touched(i, moves.values());
      Map<RequestLabels, Subset<T>> map = full ? new HashMap<>() : new HashMap<>(old.subsets());
      // (a null subset, of no member, removes the labels)
      changed.forEach((labels, members) -> map.compute(labels,
          (l, had) -> warmed(old.subsets().get(l), subsetOf(members))));
      tables[i] = changed.isEmpty() && !full ? old : new Table<>(old.keys(), old.keysHash(), map);
    }
    RequestLabels dflt = ix.defaultLabels;
    this.fallback = warmed(prev.fallback(), ix.keepAll ? subsetOf(live)
        : dflt == null ? null : subsetOf(ix.matching(index, live, dflt.keys, dflt.values)));
  }

  // notes a subset to make the child of, if it replaces one in use (whose child was made)
  private Subset<T> warmed(Subset<T> had, Subset<T> now) {
    if (had != null && now != null && now != had && had.hasChild()) {
      warm.add(now);
    }
    return now;
  }

  /**
   * Makes the child balancers of the subsets that replaced subsets in use, on the updating
   * thread, so that the next pick of those labels finds its child made rather than making it
   * (tens of microseconds at a thousand members, on a caller's thread). Run after the state is
   * published: a factory that throws leaves the child to be made, and the error reported, on
   * the first pick, as for a subset nobody had asked for.
   */
  void warm(SubsetState<T> published) {
    for (Subset<T> s : warm) {
      try {
        s.child(published);
      } catch (RuntimeException e) {
        // made again on the subset's first pick, which reports the error to its caller
      }
    }
  }

  /** Returns the state over these nodes. */
  SubsetState<T> state(List<Node<T>> nodes, Node<T>[] bySlot) {
    return new SubsetState<>(ix, nodes, bySlot, weights, index, live, tables, fallback,
        ix.newCache());
  }

  /**
   * Returns the registered subset of these members, or null if there are none; a new one is
   * checked by the child balancers' algorithm first (step 4).
   */
  private Subset<T> subsetOf(BitSet members) {
    return members.isEmpty() ? null : registry.computeIfAbsent(new Subset<>(members), s -> {
      ix.validate(s.members, weights, slot -> ix.endpoints[slot]);
      return s;
    });
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
            copies.computeIfAbsent((long) k << 32 | id, x -> and(set, null)).set(d.slot(), id == is);
          }
        }
      }
      if (d.before() == null || d.after() == null) {
        slots = slots == prev.live() ? and(slots, null) : slots;
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

  /** Returns a new set of the slots in {@code a} (null: none) and in {@code b} (null: all). */
  private BitSet and(BitSet a, BitSet b) {
    BitSet r = new BitSet(ix.highWater);
    r.or(a == null ? r : a); // reading a and b only: a published set is never written
    r.and(b == null ? r : b);
    return r;
  }

  /**
   * Returns the slots in every one of these sets (null: none): a set every live slot is in is
   * skipped, and when one set is left it is the result itself (a published set is never written).
   */
  private BitSet every(BitSet... sets) {
    BitSet r = live;
    for (BitSet s : sets) {
      if (s == null) {
        return new BitSet();
      } else if (!isFull(s)) {
        r = r == live ? s : and(r, s);
      }
    }
    return r;
  }

  private boolean isFull(BitSet s) {
    return full.computeIfAbsent(s, x -> x.cardinality() == live.cardinality());
  }

  /**
   * Step 3, full: returns the combinations of a selector's keys. The keys are taken in one
   * global order (fewest values first) so that selectors share their prefixes.
   */
  private IntFunction<Map<RequestLabels, BitSet>> allCombos() {
    int[] present = new int[index.length];
    Arrays.setAll(present, k -> (int) Arrays.stream(index[k]).filter(Objects::nonNull).count());
    Comparator<Integer> order = Comparator.<Integer>comparingInt(k -> present[k])
        .thenComparingInt(k -> k);
    Map<List<Integer>, List<Combo>> memo = new HashMap<>();
    return selector -> {
      Map<RequestLabels, BitSet> out = new HashMap<>();
      combos(Arrays.stream(ix.selectorPositions[selector]).boxed().sorted(order).toList(), memo,
          present).forEach(c -> out.put(labels(selector, c.ids), c.members));
      return out;
    };
  }

  /**
   * Returns the non-empty combinations of a key prefix: each of the shorter prefix's, ANDed with
   * each value set of the last key ({@link #every}: constant labels cost nothing). For a key of many values, the values found in a combination's members are
   * listed first: the ANDs then cost the combinations found, not the values times the
   * combinations.
   */
  private List<Combo> combos(List<Integer> prefix, Map<List<Integer>, List<Combo>> memo,
      int[] present) {
    List<Combo> done = memo.get(prefix);
    if (done != null) {
      return done;
    }
    int n = prefix.size();
    int k = prefix.get(n - 1);
    List<Combo> parents = n > 1 ? combos(prefix.subList(0, n - 1), memo, present)
        : List.of(new Combo(new int[index.length], live));
    long words = (ix.highWater + 63) / 64;
    List<Combo> out = new ArrayList<>();
    for (Combo p : parents) {
      BitSet found = new BitSet();
      // listing the values costs about as much per member as 8 words of AND
      if (present[k] * words > 8L * p.members.cardinality() && !isFull(p.members)) {
        p.members.stream().forEach(s -> found.set(Math.max(0, ix.ids[k][s]))); // (0: no value)
      } else {
        found.set(0, index[k].length);
      }
      for (int id = found.nextSetBit(0); id >= 0; id = found.nextSetBit(id + 1)) {
        BitSet m = every(p.members, index[k][id]);
        if (!m.isEmpty()) {
          int[] ids = p.ids.clone();
          ids[k] = id;
          out.add(new Combo(ids, m));
        }
      }
    }
    memo.put(List.copyOf(prefix), out);
    return out;
  }

  /**
   * Step 3, incremental: the members of a selector's combinations that a move leaves, joins or
   * is reweighted in, each the AND of its values' patched sets.
   */
  private Map<RequestLabels, BitSet> touched(int selector, Collection<Dirty> moves) {
    int[] pos = ix.selectorPositions[selector];
    Map<RequestLabels, BitSet> out = new HashMap<>();
    for (Dirty m : moves) {
      if (!m.reweighted() && stays(m, pos)) {
        continue; // it stays in its combination, if it has one
      }
      for (int[] ids : new int[][] {m.idsBefore(), m.idsAfter()}) {
        RequestLabels l = labels(selector, ids);
        if (l != null && !out.containsKey(l)) {
          BitSet[] sets = new BitSet[pos.length];
          Arrays.setAll(sets, j -> set(pos[j], ids[pos[j]]));
          out.put(l, every(sets));
        }
      }
    }
    return out;
  }

  private static boolean stays(Dirty m, int[] pos) {
    boolean same = true;
    for (int p : pos) {
      same &= m.idsBefore()[p] == m.idsAfter()[p];
    }
    return same;
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
    return RequestLabels.ofSorted(prev.tables()[selector].keys(), values);
  }
}

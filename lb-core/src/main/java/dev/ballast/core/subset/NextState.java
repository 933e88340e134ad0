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
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The next {@link SubsetState} of a selector, made from the previous one and an update's changes
 * in four steps, the same for every update:
 *
 * <ol>
 *   <li>The index: each {@code key=value} set that a changed endpoint leaves or joins is copied
 *       and its bit flipped; the other sets and rows are shared with the previous state.
 *   <li>The registry of member sets: every subset of the previous state, unless it holds an
 *       endpoint whose weight changed (its child balancer has the old weight), so that equal
 *       member sets get the subset, and the child balancer, they had.
 *   <li>The subsets. A full build (the first update, or one that changes more than the rebuild
 *       threshold) makes every selector's value combinations, key prefix by key prefix, prefixes
 *       shared between selectors (MOSN's inverted index); an incremental one only the
 *       combinations that a changed endpoint leaves, joins or is reweighted in, each the AND of
 *       its values' sets, every other entry being shared with the previous table.
 *   <li>The fallback subsets; then every new member set is checked by the child balancers'
 *       algorithm ({@link SubsetIndex#validate}) before the update makes anything else.
 * </ol>
 *
 * @param <T> the thing being balanced
 */
final class NextState<T> {

  /** A key prefix's value combination: value ids by index key (set for its keys), members. */
  private record Combo(int[] ids, BitSet members, int size) {}

  /** A change of value ids by index key ({@code null}: no endpoint) and of weight or not. */
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
  private final Subset<T> all;
  private final Subset<T> defaultSubset;
  private final Map<Subset<T>, Subset<T>> registry = new HashMap<>();
  private final List<Subset<T>> made = new ArrayList<>();

  @SuppressWarnings("unchecked")
  NextState(SubsetIndex<T> ix, SubsetState<T> prev, List<Dirty> dirty, Node<T>[] bySlot,
      int[] weights, boolean full) {
    this.ix = ix;
    this.prev = prev;
    this.bySlot = bySlot;
    this.weights = weights;
    this.index = prev.index.clone();
    this.live = patchIndex(dirty);
    BitSet reweighted = new BitSet();
    for (Dirty d : dirty) {
      reweighted.set(d.slot(), d.reweighted());
    }
    for (Table<T> t : prev.tables) {
      t.subsets().values().forEach(s -> keep(s, reweighted));
    }
    keep(prev.all, reweighted);
    keep(prev.defaultSubset, reweighted);
    this.tables = new Table[ix.selectors.length];
    if (full) {
      buildAll();
    } else {
      buildTouched(dirty);
    }
    this.all = ix.keepAll ? subsetOf(live) : null;
    this.defaultSubset = ix.defaultKeys == null ? null
        : subsetOf(ix.matching(index, live, ix.defaultKeys, ix.defaultValues));
    for (Subset<T> s : made) {
      ix.validate(s.members, weights, slot -> ix.endpoints[slot]);
    }
  }

  /** Returns the state over these nodes. */
  SubsetState<T> state(List<Node<T>> nodes) {
    return new SubsetState<>(ix, nodes, bySlot, weights, index, live, tables, all, defaultSubset);
  }

  private void keep(Subset<T> s, BitSet reweighted) {
    if (s != null && !s.members.intersects(reweighted)) {
      registry.putIfAbsent(s, s);
    }
  }

  /** Returns the registered subset of these members, made if new; null if there are none. */
  private Subset<T> subsetOf(BitSet members) {
    if (members == null || members.isEmpty()) {
      return null;
    }
    Subset<T> s = new Subset<>(members, bySlot, weights, ix.factory);
    Subset<T> had = registry.putIfAbsent(s, s);
    if (had != null) {
      return had;
    }
    made.add(s);
    return s;
  }

  /** Step 1: patches the index in place (rows and sets copied first); returns the live slots. */
  private BitSet patchIndex(List<Dirty> dirty) {
    Set<BitSet> copies = Collections.newSetFromMap(new IdentityHashMap<>());
    boolean[] rowCopied = new boolean[index.length];
    BitSet slots = prev.live;
    for (Dirty d : dirty) {
      int slot = d.slot();
      for (int k = 0; k < index.length; k++) {
        int was = d.before() == null ? -1 : d.idsBefore()[k];
        int is = d.after() == null ? -1 : ix.ids[k][slot];
        if (was != is) {
          if (!rowCopied[k]) {
            index[k] = Arrays.copyOf(index[k],
                Math.max(index[k].length, ix.valueNames.get(k).size()));
            rowCopied[k] = true;
          }
          if (was >= 0) {
            copy(k, was, copies).clear(slot);
          }
          if (is >= 0) {
            copy(k, is, copies).set(slot);
          }
        }
      }
      if (d.before() == null || d.after() == null) {
        if (slots == prev.live) {
          slots = (BitSet) copyOf(prev.live);
        }
        slots.set(slot, d.after() != null);
      }
    }
    for (int k = 0; k < index.length; k++) {
      for (int id = 0; rowCopied[k] && id < index[k].length; id++) {
        if (index[k][id] != null && index[k][id].isEmpty()) {
          index[k][id] = null;
        }
      }
    }
    return slots;
  }

  private BitSet copy(int k, int id, Set<BitSet> copies) {
    BitSet s = index[k][id];
    if (s == null || !copies.contains(s)) {
      s = copyOf(s);
      index[k][id] = s;
      copies.add(s);
    }
    return s;
  }

  /** Returns a copy made by reading {@code s} only (a shared set is never written). */
  private BitSet copyOf(BitSet s) {
    BitSet c = new BitSet(ix.highWater);
    if (s != null) {
      c.or(s);
    }
    return c;
  }

  /**
   * Step 3, full: every selector's combinations, its keys taken in a global order (fewest values
   * first) so that selectors share their prefixes.
   */
  private void buildAll() {
    int[] present = new int[index.length];
    for (int k = 0; k < index.length; k++) {
      for (BitSet s : index[k]) {
        present[k] += s == null ? 0 : 1;
      }
    }
    Comparator<Integer> order = Comparator.<Integer>comparingInt(k -> present[k])
        .thenComparingInt(k -> k);
    Map<List<Integer>, List<Combo>> memo = new HashMap<>();
    int liveSize = live.cardinality();
    for (int i = 0; i < tables.length; i++) {
      List<Integer> keys = new ArrayList<>();
      Arrays.stream(ix.selectorPositions[i]).forEach(keys::add);
      keys.sort(order);
      List<Combo> combos = combos(keys, memo, liveSize, present);
      Map<RequestLabels, Subset<T>> map = new HashMap<>(combos.size() * 2);
      for (Combo c : combos) {
        map.put(labels(i, c.ids), subsetOf(c.members));
      }
      tables[i] = table(i, map);
    }
  }

  /**
   * Returns the non-empty combinations of a key prefix: each of the shorter prefix's, ANDed with
   * each value set of the last key. A combination holding every endpoint gives the value sets
   * themselves, and a value every endpoint has gives the combination, so constant labels cost
   * nothing. For a key of many values, the values found in a combination's members are listed
   * first, so that the ANDs cost the combinations found, not the values times the combinations.
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
    BitSet[] values = index[k];
    long words = (ix.highWater + 63) / 64;
    List<Combo> out = new ArrayList<>();
    for (Combo p : parents) {
      BitSet candidates = new BitSet(values.length);
      // listing the values found costs about 8 ANDed words per member; ANDing each value, its
      // words
      if ((long) present[k] * words > 8L * p.size && p.size < liveSize) {
        int[] idsOfKey = ix.ids[k];
        Subset.forEach(p.members, s -> {
          if (idsOfKey[s] >= 0) {
            candidates.set(idsOfKey[s]);
          }
        });
      } else {
        candidates.set(0, values.length);
      }
      for (int id = candidates.nextSetBit(0); id >= 0; id = candidates.nextSetBit(id + 1)) {
        BitSet v = values[id];
        if (v == null) {
          continue;
        }
        int vSize = v.cardinality();
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

  private BitSet and(BitSet a, BitSet b) {
    BitSet r = copyOf(a);
    r.and(b);
    return r;
  }

  /**
   * Step 3, incremental: for each selector, the combinations a change leaves, joins or is
   * reweighted in, each once (changed endpoints with the same value ids before and after and
   * the same kind of change are taken together), made again from the patched index.
   */
  private void buildTouched(List<Dirty> dirty) {
    Set<Move> moves = new LinkedHashSet<>();
    for (Dirty d : dirty) {
      int[] after = null;
      if (d.after() != null) {
        after = new int[index.length];
        for (int k = 0; k < after.length; k++) {
          after[k] = ix.ids[k][d.slot()];
        }
      }
      moves.add(new Move(d.idsBefore(), after, d.reweighted()));
    }
    for (int i = 0; i < tables.length; i++) {
      int[] pos = ix.selectorPositions[i];
      Map<RequestLabels, int[]> touched = new HashMap<>();
      for (Move m : moves) {
        boolean was = has(m.before, pos);
        boolean is = has(m.after, pos);
        if (was && is && !m.reweighted && same(m.before, m.after, pos)) {
          continue; // it stays in its combination
        }
        if (was) {
          touched.put(labels(i, m.before), m.before);
        }
        if (is) {
          touched.put(labels(i, m.after), m.after);
        }
      }
      if (touched.isEmpty()) {
        tables[i] = prev.tables[i];
        continue;
      }
      Map<RequestLabels, Subset<T>> map = new HashMap<>(prev.tables[i].subsets());
      touched.forEach((labels, ids) -> {
        Subset<T> s = subsetOf(and(pos, ids));
        if (s == null) {
          map.remove(labels);
        } else {
          map.put(labels, s);
        }
      });
      tables[i] = table(i, map);
    }
  }

  private static boolean has(int[] ids, int[] pos) {
    if (ids == null) {
      return false;
    }
    for (int p : pos) {
      if (ids[p] < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean same(int[] a, int[] b, int[] pos) {
    for (int p : pos) {
      if (a[p] != b[p]) {
        return false;
      }
    }
    return true;
  }

  /** Returns the AND of the index sets of these value ids at these key positions, or null. */
  private BitSet and(int[] pos, int[] ids) {
    BitSet r = null;
    for (int p : pos) {
      BitSet s = ids[p] < index[p].length ? index[p][ids[p]] : null;
      if (s == null) {
        return null;
      }
      if (r == null) {
        r = copyOf(s);
      } else {
        r.and(s);
      }
    }
    return r;
  }

  private RequestLabels labels(int selector, int[] ids) {
    int[] pos = ix.selectorPositions[selector];
    String[] values = new String[pos.length];
    for (int j = 0; j < pos.length; j++) {
      values[j] = ix.valueNames.get(pos[j]).get(ids[pos[j]]);
    }
    return RequestLabels.ofSorted(ix.selectors[selector], values);
  }

  private Table<T> table(int selector, Map<RequestLabels, Subset<T>> map) {
    Table<T> old = prev.tables[selector];
    return new Table<>(old.keys(), old.keysHash(), map);
  }
}

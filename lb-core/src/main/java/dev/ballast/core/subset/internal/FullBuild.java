package dev.ballast.core.subset.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The full build of a {@link SubsetState} from a {@link SubsetIndex}'s slots (see the index's
 * description): the inverted index in two passes over the cached value ids, then each
 * selector's subsets key prefix by key prefix, prefixes shared between selectors. Reads the
 * index's updater-side tables; runs on the updater's thread only.
 *
 * @param <T> the thing being balanced
 */
final class FullBuild<T> {

  private final SubsetIndex<T> ix;

  FullBuild(SubsetIndex<T> ix) {
    this.ix = ix;
  }

  /**
   * Builds every subset of the slots the index holds now, registering each in {@code canon}
   * (new, so that equal member sets share one subset).
   */
  SubsetState<T> build(List<Node<T>> nodes, Node<T>[] bySlot, Canon<T> canon) {
    // Two passes over the slots' cached value ids: count, then fill exactly sized sets.
    int nk = ix.indexKeys.length;
    Endpoint[] eps = ix.endpoints;
    int[][] ids = ix.idsBySlot;
    int[][] counts = new int[nk][];
    for (int k = 0; k < nk; k++) {
      counts[k] = new int[ix.valueNames.get(k).size()];
    }
    int liveCount = 0;
    for (int slot = 0; slot < ix.highWater; slot++) {
      if (eps[slot] == null) {
        continue;
      }
      liveCount++;
      for (int k = 0; k < nk; k++) {
        int id = ids[k][slot];
        if (id >= 0) {
          counts[k][id]++;
        }
      }
    }
    // a value every endpoint has shares the all-endpoints set
    SlotSet.Builder allWriter = new SlotSet.Builder(liveCount, ix.highWater);
    SlotSet.Builder[][] writers = new SlotSet.Builder[nk][];
    for (int k = 0; k < nk; k++) {
      writers[k] = new SlotSet.Builder[counts[k].length];
      for (int id = 0; id < counts[k].length; id++) {
        if (counts[k][id] > 0 && counts[k][id] < liveCount) {
          writers[k][id] = new SlotSet.Builder(counts[k][id], ix.highWater);
        }
      }
    }
    for (int slot = 0; slot < ix.highWater; slot++) {
      if (eps[slot] == null) {
        continue;
      }
      allWriter.add(slot);
      for (int k = 0; k < nk; k++) {
        int id = ids[k][slot];
        if (id >= 0 && writers[k][id] != null) {
          writers[k][id].add(slot);
        }
      }
    }
    SlotSet live = allWriter.build();
    SlotSet[][] byId = new SlotSet[nk][];
    // per index key: how many of its values some endpoint has
    int[] present = new int[nk];
    for (int k = 0; k < nk; k++) {
      byId[k] = new SlotSet[writers[k].length];
      for (int id = 0; id < writers[k].length; id++) {
        if (writers[k][id] != null) {
          byId[k][id] = writers[k][id].build();
        } else if (counts[k][id] > 0) {
          byId[k][id] = live;
        }
        present[k] += byId[k][id] != null ? 1 : 0;
      }
    }

    Subset<T> all = liveCount == 0 ? null : canon.of(live, bySlot);
    Subset<T> dflt = null;
    if (ix.defaultKeys != null) {
      SlotSet set = ix.intersect(byId, live, ix.defaultKeys, ix.defaultValues, ix.highWater);
      dflt = set.isEmpty() ? null : canon.of(set, bySlot);
    }

    // Global key order: fewest distinct values first, then by name.
    Comparator<String> order = Comparator
        .comparingInt((String k) -> present[ix.indexKeyPosition.get(k)])
        .thenComparing(Comparator.naturalOrder());
    Map<String, Combos> memo = new HashMap<>();
    @SuppressWarnings("unchecked")
    SelectorTable<T>[] tables = new SelectorTable[ix.selectors.length];
    for (int i = 0; i < ix.selectors.length; i++) {
      String[] sorted = ix.selectors[i];
      String[] ordered = sorted.clone();
      Arrays.sort(ordered, order);
      Combos combos = combos(ordered, ordered.length, memo, byId, live);
      // perm[j]: position in the ordered prefix of the j-th key in name order
      int[] perm = new int[sorted.length];
      for (int j = 0; j < sorted.length; j++) {
        perm[j] = Arrays.asList(ordered).indexOf(sorted[j]);
      }
      List<RequestLabels> labels = new ArrayList<>(combos.size());
      List<Subset<T>> subsets = new ArrayList<>(combos.size());
      for (int c = 0; c < combos.size(); c++) {
        String[] v = combos.values.get(c);
        String[] vs = new String[v.length];
        for (int j = 0; j < vs.length; j++) {
          vs[j] = v[perm[j]];
        }
        labels.add(ix.labels(sorted, vs));
        subsets.add(canon.of(combos.sets.get(c), bySlot));
      }
      tables[i] = SelectorTable.of(sorted, labels, subsets);
    }
    return new SubsetState<>(ix, nodes, bySlot, byId, live, tables, all, dflt);
  }

  /** The non-empty value combinations of a key prefix: values in prefix order and members. */
  private static final class Combos {
    final List<String[]> values = new ArrayList<>();
    final List<SlotSet> sets = new ArrayList<>();

    int size() {
      return values.size();
    }

    void add(String[] v, SlotSet members) {
      values.add(v);
      sets.add(members);
    }
  }

  private Combos combos(String[] ordered, int len, Map<String, Combos> memo, SlotSet[][] byId,
      SlotSet all) {
    String memoKey = String.join("\u0000", Arrays.asList(ordered).subList(0, len));
    Combos done = memo.get(memoKey);
    if (done != null) {
      return done;
    }
    Combos result = new Combos();
    int k = ix.indexKeyPosition.get(ordered[len - 1]);
    // the key's sets by value id (null: no endpoint has the value)
    SlotSet[] byValue = byId[k];
    List<String> names = ix.valueNames.get(k);
    if (len == 1) {
      for (int id = 0; id < byValue.length; id++) {
        if (byValue[id] != null) {
          result.add(new String[] {names.get(id)}, byValue[id]);
        }
      }
    } else if (hasAny(byValue)) {
      Combos parent = combos(ordered, len - 1, memo, byId, all);
      for (int p = 0; p < parent.size(); p++) {
        String[] pv = parent.values.get(p);
        SlotSet pb = parent.sets.get(p);
        if (pb.size() == all.size()) {
          // prefix = every endpoint: prefix AND (key=value) is the value's own set
          for (int id = 0; id < byValue.length; id++) {
            if (byValue[id] != null) {
              result.add(extend(pv, names.get(id)), byValue[id]);
            }
          }
        } else {
          split(pv, pb, k, result);
        }
      }
    }
    memo.put(memoKey, result);
    return result;
  }

  /**
   * Intersects a prefix's members with every value set of key {@code k} at once: one pass
   * counts the members per value (each slot's value id is cached), a second fills sets
   * allocated at their exact size. Costs the prefix's size, however many values the key has,
   * where an AND per value costs values x size and allocates a result per value. A value
   * holding the whole prefix reuses the prefix's set.
   */
  private void split(String[] pv, SlotSet pb, int k, Combos out) {
    int[] ids = ix.idsBySlot[k];
    int[] counts = new int[ix.valueNames.get(k).size()];
    int[] members = ix.slotScratch();
    int card = pb.copyTo(members);
    for (int m = 0; m < card; m++) {
      int id = ids[members[m]];
      if (id >= 0) {
        counts[id]++;
      }
    }
    SlotSet.Builder[] writers = new SlotSet.Builder[counts.length];
    boolean fill = false;
    for (int id = 0; id < counts.length; id++) {
      if (counts[id] == card) {
        out.add(extend(pv, ix.valueNames.get(k).get(id)), pb);
      } else if (counts[id] > 0) {
        writers[id] = new SlotSet.Builder(counts[id], ix.highWater);
        fill = true;
      }
    }
    if (!fill) {
      return;
    }
    for (int m = 0; m < card; m++) {
      int slot = members[m];
      int id = ids[slot];
      if (id >= 0 && writers[id] != null) {
        writers[id].add(slot);
      }
    }
    for (int id = 0; id < counts.length; id++) {
      if (writers[id] != null) {
        out.add(extend(pv, ix.valueNames.get(k).get(id)), writers[id].build());
      }
    }
  }

  private static boolean hasAny(SlotSet[] sets) {
    for (SlotSet s : sets) {
      if (s != null) {
        return true;
      }
    }
    return false;
  }

  private static String[] extend(String[] pv, String value) {
    String[] v = Arrays.copyOf(pv, pv.length + 1);
    v[pv.length] = value;
    return v;
  }
}

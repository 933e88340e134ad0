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
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

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
    // Two passes over the slots' cached value ids: count, then fill exactly sized bitmaps.
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
    @SuppressWarnings("unchecked")
    ExactBitmapBuilder[][] writers = new ExactBitmapBuilder[nk][];
    for (int k = 0; k < nk; k++) {
      writers[k] = new ExactBitmapBuilder[counts[k].length];
      for (int id = 0; id < counts[k].length; id++) {
        if (counts[k][id] > 0) {
          writers[k][id] = new ExactBitmapBuilder(counts[k][id], ix.highWater);
        }
      }
    }
    ExactBitmapBuilder liveWriter = new ExactBitmapBuilder(liveCount, ix.highWater);
    for (int slot = 0; slot < ix.highWater; slot++) {
      if (eps[slot] == null) {
        continue;
      }
      liveWriter.add(slot);
      for (int k = 0; k < nk; k++) {
        int id = ids[k][slot];
        if (id >= 0) {
          writers[k][id].add(slot);
        }
      }
    }
    RoaringBitmap live = liveWriter.get();
    Map<String, Map<String, RoaringBitmap>> index = new HashMap<>();
    for (int k = 0; k < nk; k++) {
      Map<String, RoaringBitmap> inner = new HashMap<>();
      for (int id = 0; id < writers[k].length; id++) {
        if (writers[k][id] != null) {
          inner.put(ix.valueNames.get(k).get(id), writers[k][id].get());
        }
      }
      if (!inner.isEmpty()) {
        index.put(ix.indexKeys[k], inner);
      }
    }

    Subset<T> all = liveCount == 0 ? null : canon.of(live, bySlot);
    Subset<T> dflt = null;
    if (ix.defaultKeys != null) {
      RoaringBitmap bm = SubsetIndex.intersect(index, live, ix.defaultKeys, ix.defaultValues);
      dflt = bm.isEmpty() ? null : canon.of(bm, bySlot);
    }

    // Global key order: fewest distinct values first, then by name.
    Comparator<String> order = Comparator
        .comparingInt((String k) -> index.containsKey(k) ? index.get(k).size() : 0)
        .thenComparing(Comparator.naturalOrder());
    Map<String, Combos> memo = new HashMap<>();
    @SuppressWarnings("unchecked")
    SelectorTable<T>[] tables = new SelectorTable[ix.selectors.length];
    for (int i = 0; i < ix.selectors.length; i++) {
      String[] sorted = ix.selectors[i];
      String[] ordered = sorted.clone();
      Arrays.sort(ordered, order);
      Combos combos = combos(ordered, ordered.length, memo, index, live, liveCount);
      // perm[j]: position in the ordered prefix of the j-th key in name order
      int[] perm = new int[sorted.length];
      for (int j = 0; j < sorted.length; j++) {
        perm[j] = Arrays.asList(ordered).indexOf(sorted[j]);
      }
      Map<RequestLabels, Subset<T>> map = new HashMap<>(Math.max(4, combos.size() * 2));
      for (int c = 0; c < combos.size(); c++) {
        String[] v = combos.values.get(c);
        String[] vs = new String[v.length];
        for (int j = 0; j < vs.length; j++) {
          vs[j] = v[perm[j]];
        }
        map.put(ix.labels(sorted, vs), canon.of(combos.bitmaps.get(c), bySlot));
      }
      tables[i] = new SelectorTable<>(sorted, Arrays.hashCode(sorted), map);
    }
    return new SubsetState<>(ix, nodes, bySlot, index, live, tables, all, dflt);
  }

  /** The non-empty value combinations of a key prefix: values in prefix order and members. */
  private static final class Combos {
    final List<String[]> values = new ArrayList<>();
    final List<RoaringBitmap> bitmaps = new ArrayList<>();

    int size() {
      return values.size();
    }

    void add(String[] v, RoaringBitmap bm) {
      values.add(v);
      bitmaps.add(bm);
    }
  }

  private Combos combos(String[] ordered, int len, Map<String, Combos> memo,
      Map<String, Map<String, RoaringBitmap>> index, RoaringBitmap live, int liveCount) {
    String memoKey = String.join("\u0000", Arrays.asList(ordered).subList(0, len));
    Combos done = memo.get(memoKey);
    if (done != null) {
      return done;
    }
    Combos result = new Combos();
    String key = ordered[len - 1];
    Map<String, RoaringBitmap> byValue = index.getOrDefault(key, Map.of());
    if (len == 1) {
      for (Map.Entry<String, RoaringBitmap> en : byValue.entrySet()) {
        result.add(new String[] {en.getKey()}, en.getValue());
      }
    } else if (!byValue.isEmpty()) {
      Combos parent = combos(ordered, len - 1, memo, index, live, liveCount);
      int k = ix.indexKeyPosition.get(key);
      for (int p = 0; p < parent.size(); p++) {
        String[] pv = parent.values.get(p);
        RoaringBitmap pb = parent.bitmaps.get(p);
        if (pb.getCardinality() == liveCount) {
          // prefix = every endpoint: prefix AND (key=value) is the value's own bitmap
          for (Map.Entry<String, RoaringBitmap> en : byValue.entrySet()) {
            String[] v = Arrays.copyOf(pv, len);
            v[len - 1] = en.getKey();
            result.add(v, en.getValue());
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
   * Intersects a prefix's members with every value bitmap of key {@code k} at once: one pass
   * counts the members per value (each slot's value id is cached), a second fills bitmaps
   * allocated at their exact size. Costs the prefix's size, however many values the key has,
   * where an AND per value costs values x size and allocates a prefix-sized array per value
   * (RoaringBitmap sizes an AND's result for the smaller input): at 8000 hosts and 3 values per
   * key, that was 3x the bytes. A value holding the whole prefix reuses the prefix's bitmap.
   */
  private void split(String[] pv, RoaringBitmap pb, int k, Combos out) {
    int[] ids = ix.idsBySlot[k];
    int[] counts = new int[ix.valueNames.get(k).size()];
    PeekableIntIterator it = pb.getIntIterator();
    while (it.hasNext()) {
      int id = ids[it.next()];
      if (id >= 0) {
        counts[id]++;
      }
    }
    int card = pb.getCardinality();
    @SuppressWarnings("unchecked")
    ExactBitmapBuilder[] writers = new ExactBitmapBuilder[counts.length];
    boolean fill = false;
    for (int id = 0; id < counts.length; id++) {
      if (counts[id] == card) {
        out.add(extend(pv, ix.valueNames.get(k).get(id)), pb);
      } else if (counts[id] > 0) {
        writers[id] = new ExactBitmapBuilder(counts[id], ix.highWater);
        fill = true;
      }
    }
    if (!fill) {
      return;
    }
    it = pb.getIntIterator();
    while (it.hasNext()) {
      int slot = it.next();
      int id = ids[slot];
      if (id >= 0 && writers[id] != null) {
        writers[id].add(slot);
      }
    }
    for (int id = 0; id < counts.length; id++) {
      if (writers[id] != null) {
        out.add(extend(pv, ix.valueNames.get(k).get(id)), writers[id].get());
      }
    }
  }

  private static String[] extend(String[] pv, String value) {
    String[] v = Arrays.copyOf(pv, pv.length + 1);
    v[pv.length] = value;
    return v;
  }
}

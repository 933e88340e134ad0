package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SelectorTableTest {

  private static final String[] KEYS = {"version", "zone"};

  private static RequestLabels labels(int zone, int version) {
    return RequestLabels.of(Map.of("zone", "z" + zone, "version", "v" + version));
  }

  private static Subset<String> subset() {
    return new Subset<>(SlotSet.EMPTY, null, null);
  }

  /**
   * Tables of 0 to 200 random label sets answer like a HashMap: every present label set (looked
   * up through an equal but distinct object) gives its subset, every absent one null; {@code
   * forEach} and {@code toMap} give exactly the entries.
   */
  @Test
  void answersLikeAHashMap() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      int n = r.nextInt(201);
      Map<RequestLabels, Subset<String>> model = new HashMap<>();
      while (model.size() < n) {
        model.put(labels(r.nextInt(40), r.nextInt(40)), subset());
      }
      SelectorTable<String> t = SelectorTable.of(KEYS, model);
      assertThat(t.size()).isEqualTo(n);
      assertThat(t.keysHash).isEqualTo(Arrays.hashCode(KEYS));
      for (int z = 0; z < 40; z++) {
        for (int v = 0; v < 40; v++) {
          RequestLabels l = labels(z, v);
          assertThat(t.get(l)).isSameAs(model.get(l));
          assertThat(t.indexOf(l) >= 0).isEqualTo(model.containsKey(l));
        }
      }
      Map<RequestLabels, Subset<String>> seen = new HashMap<>();
      t.forEach((l, s) -> assertThat(seen.put(l, s)).isNull());
      assertThat(seen).isEqualTo(model);
      assertThat(t.toMap(null)).isEqualTo(model);
    }
  }

  /**
   * {@code with} gives a table with the same labels whose changed positions have the new
   * subsets, and leaves the original as it was (a published table is never modified).
   */
  @Test
  void withChangesOnlyTheGivenPositions() {
    List<RequestLabels> ls = new ArrayList<>();
    List<Subset<String>> ss = new ArrayList<>();
    for (int z = 0; z < 5; z++) {
      ls.add(labels(z, 0));
      ss.add(subset());
    }
    SelectorTable<String> t = SelectorTable.of(KEYS, ls, ss);
    Subset<String>[] byPos = t.subsetsCopy();
    Subset<String> replacement = subset();
    byPos[t.indexOf(labels(3, 0))] = replacement;
    SelectorTable<String> next = t.with(byPos);
    for (int z = 0; z < 5; z++) {
      assertThat(t.get(labels(z, 0))).isSameAs(ss.get(z));
      assertThat(next.get(labels(z, 0))).isSameAs(z == 3 ? replacement : ss.get(z));
    }
    assertThat(next.size()).isEqualTo(5);
    assertThat(t.toMap(byPos).get(labels(3, 0))).isSameAs(replacement);
    // positions are remembered by layout: with() keeps it, a table made anew has its own
    assertThat(next.layout()).isSameAs(t.layout());
    SelectorTable<String> remade = SelectorTable.of(KEYS, ls, ss);
    assertThat(remade.layout()).isNotSameAs(t.layout()).isNotInstanceOf(Object[].class);
  }

  /** The table has a power-of-two number of positions, at least twice its size. */
  @Test
  void capacityIsAPowerOfTwoAtLeastTwiceTheSize() {
    for (int n : new int[] {0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 1000}) {
      List<RequestLabels> ls = new ArrayList<>();
      List<Subset<String>> ss = new ArrayList<>();
      for (int z = 0; z < n; z++) {
        ls.add(labels(z, 0));
        ss.add(subset());
      }
      int capacity = SelectorTable.of(KEYS, ls, ss).capacity();
      assertThat(Integer.bitCount(capacity)).as("n=%d", n).isEqualTo(1);
      assertThat(capacity).as("n=%d", n).isGreaterThanOrEqualTo(Math.max(2, 2 * n));
    }
  }

  /**
   * Labels that differ only in a numbered value (whose hash codes are close together) still
   * spread over the table: lookups, found or not, read few positions on average and none reads
   * a long run. Sets: 10 zones x 100 versions, 64 x 64, and 1000 versions of one zone.
   */
  @Test
  void numberedValuesSpreadWithShortProbeRuns() {
    int[][] shapes = {{10, 100}, {64, 64}, {1, 1000}};
    for (int[] shape : shapes) {
      List<RequestLabels> ls = new ArrayList<>();
      List<Subset<String>> ss = new ArrayList<>();
      for (int z = 0; z < shape[0]; z++) {
        for (int v = 0; v < shape[1]; v++) {
          ls.add(labels(z, v));
          ss.add(subset());
        }
      }
      SelectorTable<String> t = SelectorTable.of(KEYS, ls, ss);
      long hits = 0;
      int maxHit = 0;
      for (RequestLabels l : ls) {
        int p = t.probes(labels(Integer.parseInt(l.value(1).substring(1)),
            Integer.parseInt(l.value(0).substring(1))));
        hits += p;
        maxHit = Math.max(maxHit, p);
      }
      long misses = 0;
      int maxMiss = 0;
      for (int z = 0; z < shape[0]; z++) {
        for (int v = shape[1]; v < 2 * shape[1]; v++) {
          int p = t.probes(labels(z, v));
          misses += p;
          maxMiss = Math.max(maxMiss, p);
        }
      }
      // linear probing at half load expects 1.5 reads for a hit and 2.5 for a miss
      String shapeName = shape[0] + "x" + shape[1];
      assertThat(hits / (double) ls.size()).as(shapeName).isLessThan(2.0);
      assertThat(misses / (double) ls.size()).as(shapeName).isLessThan(3.5);
      assertThat(Math.max(maxHit, maxMiss)).as(shapeName).isLessThan(40);
    }
  }

  @Test
  void emptyTableFindsNothingAndRepeatedLabelsAreRefused() {
    SelectorTable<String> empty = SelectorTable.empty(KEYS);
    assertThat(empty.size()).isZero();
    assertThat(empty.get(labels(0, 0))).isNull();
    assertThatThrownBy(() -> SelectorTable.of(KEYS, List.of(labels(1, 1), labels(1, 1)),
        List.of(subset(), subset())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("given twice");
  }
}

package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
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
      SelectorTable<String> t = SelectorTable.of(KEYS, 7, model);
      assertThat(t.size()).isEqualTo(n);
      assertThat(t.keysHash).isEqualTo(7);
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
    SelectorTable<String> t = SelectorTable.of(KEYS, 7, ls, ss);
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
  }

  @Test
  void emptyTableFindsNothingAndRepeatedLabelsAreRefused() {
    SelectorTable<String> empty = SelectorTable.empty(KEYS);
    assertThat(empty.size()).isZero();
    assertThat(empty.get(labels(0, 0))).isNull();
    assertThatThrownBy(() -> SelectorTable.of(KEYS, 7, List.of(labels(1, 1), labels(1, 1)),
        List.of(subset(), subset())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("given twice");
  }
}

package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LabelTableTest {

  @SuppressWarnings("unchecked")
  private static final Node<String>[] NO_NODES = new Node[0];

  private static Subset<String> subset() {
    return new Subset<>(SlotSet.EMPTY, NO_NODES, () -> null);
  }

  private static RequestLabels labels(int zone, int version) {
    return RequestLabels.of("zone", "z" + zone, "version", "v" + version);
  }

  @Test
  void editsBehaveLikeAHashMapAndNeverChangeEarlierVersions() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      List<Subset<String>> subsets = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        subsets.add(subset());
      }
      LabelTable<String> table = LabelTable.empty();
      Map<RequestLabels, Subset<String>> model = new HashMap<>();
      List<LabelTable<String>> versions = new ArrayList<>();
      List<Map<RequestLabels, Subset<String>>> models = new ArrayList<>();
      for (int round = 0; round < 200; round++) {
        LabelTable.Editor<String> editor = table.edit();
        int ops = 1 + r.nextInt(30);
        for (int op = 0; op < ops; op++) {
          // fresh instances: lookups must go by content, not identity
          RequestLabels l = labels(r.nextInt(12), r.nextInt(12));
          if (r.nextInt(3) == 0) {
            editor.remove(l);
            model.remove(l);
          } else {
            Subset<String> s = subsets.get(r.nextInt(subsets.size()));
            editor.put(l, s);
            model.put(l, s);
          }
        }
        table = editor.build();
        versions.add(table);
        models.add(new HashMap<>(model));
      }
      for (int v = 0; v < versions.size(); v++) {
        assertSame(versions.get(v), models.get(v));
      }
    }
  }

  @Test
  void aNewTableSizedForItsEntriesHoldsThemAll() {
    for (int n = 0; n <= 100; n++) {
      LabelTable.Editor<String> editor = new LabelTable.Editor<>(n);
      Map<RequestLabels, Subset<String>> model = new HashMap<>();
      for (int i = 0; i < n; i++) {
        Subset<String> s = subset();
        editor.put(labels(i, i % 7), s);
        model.put(labels(i, i % 7), s);
      }
      assertSame(editor.build(), model);
    }
  }

  private static void assertSame(LabelTable<String> table,
      Map<RequestLabels, Subset<String>> model) {
    assertThat(table.size()).isEqualTo(model.size());
    Map<RequestLabels, Subset<String>> seen = new HashMap<>();
    table.forEach(seen::put);
    assertThat(seen).isEqualTo(model);
    for (int z = 0; z < 12; z++) {
      for (int v = 0; v < 12; v++) {
        assertThat(table.get(labels(z, v))).isSameAs(model.get(labels(z, v)));
      }
    }
  }
}

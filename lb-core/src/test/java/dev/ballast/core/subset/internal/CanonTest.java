package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** The registry of shared subsets against a HashMap model, through growth and removals. */
class CanonTest {

  @Test
  void equalSetsShareOneSubsetAndRetiredOnesAreForgottenAcrossGrowth() {
    SplittableRandom r = new SplittableRandom(3);
    Canon<String> canon = new Canon<>(() -> Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults()));
    @SuppressWarnings("unchecked")
    Node<String>[] bySlot = new Node[0];
    Map<SlotSet, Subset<String>> model = new HashMap<>();
    List<SlotSet> known = new ArrayList<>();
    int shared = 0;
    for (int step = 0; step < 20_000; step++) {
      if (!known.isEmpty() && r.nextInt(3) == 0) {
        SlotSet set = known.get(r.nextInt(known.size()));
        Subset<String> s = model.remove(set);
        if (s != null) {
          canon.retire(s);
        } else {
          // retiring a subset that is no longer registered changes nothing
          canon.retire(new Subset<>(set, bySlot, null));
        }
      } else {
        // few distinct sets, so that lookups often find one, and equal copies of them
        int a = r.nextInt(200);
        SlotSet set = set(a, a + 1 + r.nextInt(3));
        Subset<String> got = canon.of(set, bySlot);
        Subset<String> want = model.get(set);
        if (want != null) {
          assertThat(got).as("step %d", step).isSameAs(want);
          shared++;
        } else {
          assertThat(got.members()).isSameAs(set);
          model.put(set, got);
          known.add(set);
        }
      }
      assertThat(canon.size()).as("step %d", step).isEqualTo(model.size());
    }
    assertThat(shared).isGreaterThan(1000);
    for (Map.Entry<SlotSet, Subset<String>> e : model.entrySet()) {
      assertThat(canon.of(e.getKey(), bySlot)).isSameAs(e.getValue());
    }
  }

  private static SlotSet set(int from, int to) {
    SlotSet.Builder b = new SlotSet.Builder(to - from, 1000);
    for (int i = from; i < to; i++) {
      b.add(i);
    }
    return b.build();
  }
}

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

  @Test
  void probeRunsThatClusterAndWrapAroundStayConsistent() {
    // Content hashes chosen so that their home positions pile up at the table's last slots (the
    // runs wrap around to the first ones) or at its first slots, at every capacity: the home is
    // the top bits of hash x golden ratio, so hash = p x (golden ratio)^-1 gives home = top(p).
    long golden = 0x9E3779B97F4A7C15L;
    long inverse = golden;
    for (int i = 0; i < 6; i++) {
      inverse *= 2 - golden * inverse; // Newton's iteration for the inverse modulo 2^64
    }
    assertThat(golden * inverse).isEqualTo(1L);
    SplittableRandom r = new SplittableRandom(7);
    long[] hashes = new long[8];
    for (int i = 0; i < hashes.length; i++) {
      long p = i < 3 ? (-1L << 40) | r.nextLong(1L << 40) : i < 5 ? r.nextLong(1L << 40)
          : r.nextLong();
      hashes[i] = p * inverse;
    }
    SlotSet base = set(1, 4);
    @SuppressWarnings("unchecked")
    Node<String>[] bySlot = new Node[100];
    SlotSet[] sources = {base, base};
    for (int round = 0; round < 20; round++) {
      Canon<String> canon = new Canon<>(() -> null);
      List<Subset<String>> live = new ArrayList<>();
      int nextSize = 1;
      for (int step = 0; step < 5000; step++) {
        int op = r.nextInt(10);
        if (op < 4 && !live.isEmpty()) {
          canon.retire(live.remove(r.nextInt(live.size())));
        } else if (op < 7 && !live.isEmpty()) {
          Subset<String> s = live.get(r.nextInt(live.size()));
          assertThat(canon.intern(s)).as("round %d step %d", round, step).isSameAs(s);
        } else if (live.size() < 400) {
          // pending subsets of distinct sizes (never equal, so no members are read) from few
          // hashes
          Subset<String> got = canon.ofIntersection(nextSize++,
              hashes[r.nextInt(hashes.length)], sources, 2, bySlot);
          assertThat(got.isPending()).isTrue();
          live.add(got);
        }
        assertThat(canon.size()).isEqualTo(live.size());
      }
      for (Subset<String> s : live) {
        assertThat(canon.intern(s)).isSameAs(s);
        assertThat(s.isPending()).isTrue();
      }
    }
  }

  @Test
  void aMadeSetFindsAnEqualPendingSubsetWithoutMakingOthers() {
    @SuppressWarnings("unchecked")
    Node<String>[] bySlot = new Node[256];
    Canon<String> canon = new Canon<>(() -> null);
    SlotSet want = slots(5, 6, 70);
    SlotSet[] sources = {slots(1, 5, 6, 70), slots(5, 6, 9, 70, 200), null, null};
    Subset<String> pending = canon.ofIntersection(3, want.hash, sources, 2, bySlot);
    assertThat(pending.isPending()).isTrue();
    // another set (another hash) registers apart, and reads no pending members
    assertThat(canon.of(slots(5, 6, 71), bySlot)).isNotSameAs(pending);
    assertThat(pending.isPending()).isTrue();
    // an equal set finds the pending subset (its members made to compare)
    assertThat(canon.of(slots(5, 6, 70), bySlot)).isSameAs(pending);
    assertThat(pending.isPending()).isFalse();
    assertThat(canon.size()).isEqualTo(2);
  }

  private static SlotSet slots(int... members) {
    SlotSet.Builder b = new SlotSet.Builder(members.length, 256);
    for (int m : members) {
      b.add(m);
    }
    return b.build();
  }

  private static SlotSet set(int from, int to) {
    SlotSet.Builder b = new SlotSet.Builder(to - from, 1000);
    for (int i = from; i < to; i++) {
      b.add(i);
    }
    return b.build();
  }
}

package dev.ballast.core.subset.internal;

import static dev.ballast.core.subset.internal.SlotSetTest.build;
import static dev.ballast.core.subset.internal.SlotSetTest.hashOf;
import static dev.ballast.core.subset.internal.SlotSetTest.randomSet;
import static dev.ballast.core.subset.internal.SlotSetTest.toInts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Pending subsets: members made on first read as the AND of their sources, checked. */
class SubsetTest {

  @Test
  void aPendingSubsetHasTheMembersOfTheAndOfItsSourcesInEitherForm() {
    SplittableRandom r = new SplittableRandom(23);
    int pendingReads = 0;
    int madeAtOnce = 0;
    for (int round = 0; round < 600; round++) {
      int limit = 1 + r.nextInt(r.nextInt(10) == 0 ? 50_000 : 4000);
      @SuppressWarnings("unchecked")
      Node<String>[] bySlot = new Node[limit];
      // two to six sources, dense or sparse, some of them much smaller than the others
      SlotSet[] sources = new SlotSet[2 + r.nextInt(5)];
      TreeSet<Integer> expected = null;
      for (int i = 0; i < sources.length; i++) {
        int size = r.nextInt(4) == 0 ? r.nextInt(40) : r.nextInt(limit + 1);
        TreeSet<Integer> members = randomSet(r, Math.min(size, limit), limit);
        sources[i] = build(members, limit);
        if (expected == null) {
          expected = new TreeSet<>(members);
        } else {
          expected.retainAll(members);
        }
      }
      SlotSet and = SlotSet.and(sources, limit);
      assertThat(and.toArray()).as("round %d", round).isEqualTo(toInts(expected));
      assertThat(and.hash).isEqualTo(hashOf(expected));
      if (expected.isEmpty()) {
        continue;
      }
      // the array is the caller's scratch: only its first n count, and it is not kept
      int n = sources.length;
      SlotSet[] scratch = java.util.Arrays.copyOf(sources, n + 1);
      Subset<String> lazy = Subset.pending(expected.size(), hashOf(expected), scratch, n, bySlot,
          () -> null);
      java.util.Arrays.fill(scratch, null);
      Subset<String> fresh = new Subset<>(build(expected, limit), bySlot, () -> null);
      assertThat(lazy.size()).isEqualTo(expected.size());
      assertThat(lazy.hash).isEqualTo(fresh.hash);
      if (n > Subset.MAX_SOURCES) {
        assertThat(lazy.isPending()).isFalse();
        madeAtOnce++;
      } else {
        assertThat(lazy.isPending()).isTrue();
        // size, hash and equality against a different set need no members when they differ
        Subset<String> other = new Subset<>(
            build(randomSet(r, Math.min(expected.size() + 1, limit), limit), limit), bySlot,
            () -> null);
        if (other.size() != lazy.size()) {
          assertThat(lazy.sameMembers(other)).isFalse();
          assertThat(lazy.isPending()).isTrue();
        }
        switch (r.nextInt(3)) {
          case 0 -> assertThat(lazy.sameMembers(fresh)).isTrue();
          case 1 -> assertThat(lazy.members().toArray()).isEqualTo(toInts(expected));
          default -> assertThat(lazy.nodes()).hasSize(expected.size());
        }
        pendingReads++;
        assertThat(lazy.isPending()).isFalse();
      }
      assertThat(lazy.members().toArray()).isEqualTo(toInts(expected));
      assertThat(fresh.sameMembers(lazy)).isTrue();
      // a patch of the made members patches them
      int slot = r.nextInt(limit);
      SlotSet patched = SlotSet.patch(lazy.members(), new int[] {PatchOps.op(slot, true)}, 1,
          limit, new int[limit + 2]);
      TreeSet<Integer> plus = new TreeSet<>(expected);
      plus.add(slot);
      assertThat(patched.toArray()).isEqualTo(toInts(plus));
    }
    assertThat(pendingReads).isGreaterThan(200);
    assertThat(madeAtOnce).isGreaterThan(50);
  }

  @Test
  void aPendingSubsetOfTheWrongSizeOrHashFailsWhenRead() {
    SlotSet a = build(new TreeSet<>(List.of(1, 2, 3)), 100);
    SlotSet b = build(new TreeSet<>(List.of(2, 3, 4)), 100);
    @SuppressWarnings("unchecked")
    Node<String>[] bySlot = new Node[100];
    Subset<String> wrong = Subset.pending(3, 0, new SlotSet[] {a, b}, 2, bySlot, () -> null);
    assertThatThrownBy(wrong::nodes).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("intersection of 2 slots (expected: 3)");
    // a wrong hash with the right size is caught where assertions are on (as in these tests)
    Subset<String> wrongHash = Subset.pending(2, 12345, new SlotSet[] {a, b}, 2, bySlot,
        () -> null);
    assertThatThrownBy(wrongHash::members).isInstanceOf(AssertionError.class)
        .hasMessage("intersection hash");
    // with more sources than it keeps, the members are made (and checked) at once
    SlotSet[] many = {a, b, a, b, a};
    assertThatThrownBy(() -> Subset.pending(3, 0, many, 5, bySlot, () -> null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("intersection of 2 slots (expected: 3)");
    assertThatThrownBy(() -> Subset.pending(1, 0, many, 1, bySlot, () -> null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void threadsReadingAPendingSubsetAtOnceAllGetTheSameMembers() throws Exception {
    Supplier<Balancer<String>> factory =
        () -> Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults());
    Balancer<String> prototype = factory.get();
    @SuppressWarnings("unchecked")
    Node<String>[] bySlot = new Node[2000];
    for (int i = 0; i < bySlot.length; i++) {
      bySlot[i] = prototype.newNode(Endpoint.of("10.0." + (i >> 8) + "." + (i & 255), 80), "n" + i);
    }
    TreeSet<Integer> low = new TreeSet<>();
    TreeSet<Integer> high = new TreeSet<>();
    for (int i = 0; i < 2000; i++) {
      if (i < 1500) {
        low.add(i);
      }
      if (i >= 500) {
        high.add(i);
      }
    }
    SlotSet[] sources = {build(low, 2000), build(high, 2000)};
    SlotSet expected = SlotSet.and(sources, 2000);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 200; round++) {
        Subset<String> s = Subset.pending(expected.size(), expected.hash, sources, 2, bySlot,
            factory);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<SlotSet>> reads = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          boolean viaChild = t % 2 == 0;
          reads.add(pool.submit(() -> {
            start.await();
            if (viaChild) {
              s.child().pick().cancel();
            }
            return s.members();
          }));
        }
        SlotSet first = reads.get(0).get();
        for (Future<SlotSet> read : reads) {
          assertThat(read.get()).isSameAs(first);
        }
        assertThat(first).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}

package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** Slot sets against a TreeSet model: patches in both forms, equality, hash and Roaring view. */
class SlotSetTest {

  @Test
  void patchMatchesTheModelAcrossFormsAndKeepsTheHash() {
    SplittableRandom r = new SplittableRandom(11);
    int sparseToDense = 0;
    int denseToSparse = 0;
    for (int round = 0; round < 3000; round++) {
      int limit = 1 + r.nextInt(r.nextInt(10) == 0 ? 100_000 : 9000);
      int words = SlotSet.wordsFor(limit);
      // sizes around the form thresholds (w and 2w members) often enough to cross them
      int size = switch (r.nextInt(3)) {
        case 0 -> Math.max(0, words + r.nextInt(words + 1) - words / 2);
        case 1 -> Math.max(0, 2 * words + r.nextInt(words + 1) - words / 2);
        default -> r.nextInt(Math.min(limit, 9000) + 1);
      };
      TreeSet<Integer> members = randomSet(r, Math.min(size, limit), limit);
      SlotSet old = build(members, limit);
      int[] ops = new int[r.nextInt(600)];
      Integer[] list = members.toArray(new Integer[0]);
      // per round, how likely an op joins: some rounds mostly shrink the set, some grow it
      double joins = r.nextDouble();
      for (int i = 0; i < ops.length; i++) {
        // half the ops on members, so sets shrink past the thresholds too; joining a member
        // or leaving a non-member must change nothing
        int slot = list.length > 0 && r.nextBoolean() ? list[r.nextInt(list.length)]
            : r.nextInt(limit);
        ops[i] = PatchOps.op(slot, r.nextDouble() < joins);
      }
      Arrays.sort(ops);
      TreeSet<Integer> expected = new TreeSet<>(members);
      for (int op : ops) {
        if ((op & 1) != 0) {
          expected.add(op >>> 1);
        } else {
          expected.remove(op >>> 1);
        }
      }
      SlotSet got = SlotSet.patch(old, ops, ops.length, limit, new int[limit + 1]);
      assertThat(got.toArray()).as("round %d", round).isEqualTo(toInts(expected));
      assertThat(got.size()).isEqualTo(expected.size());
      assertThat(got.hash).isEqualTo(hashOf(expected));
      SlotSet fresh = build(expected, limit);
      assertThat(got).isEqualTo(fresh).hasSameHashCodeAs(fresh);
      boolean noOp = Arrays.stream(ops).allMatch(op -> members.contains(op >>> 1) == ((op & 1) != 0));
      if (noOp) {
        assertThat(got).as("ops that change nothing give the old set itself").isSameAs(old);
      }
      for (int probe = 0; probe < 20; probe++) {
        int slot = r.nextInt(limit + 64);
        assertThat(got.contains(slot)).isEqualTo(expected.contains(slot));
      }
      sparseToDense += !old.isDense() && got.isDense() ? 1 : 0;
      denseToSparse += old.isDense() && !got.isDense() && !got.isEmpty() ? 1 : 0;
      // the input is never modified
      assertThat(old.toArray()).isEqualTo(toInts(members));
    }
    assertThat(sparseToDense).as("sparse to dense").isGreaterThan(20);
    assertThat(denseToSparse).as("dense to sparse").isGreaterThan(10);
  }

  @Test
  void denseSetsTakeOpsInAnyOrderAndGrowPastTheirLimit() {
    SplittableRandom r = new SplittableRandom(5);
    for (int round = 0; round < 500; round++) {
      int limit = 64 + r.nextInt(4000);
      TreeSet<Integer> members = randomSet(r, limit / 2, limit);
      SlotSet old = build(members, limit);
      assertThat(old.isDense()).isTrue();
      // distinct slots, some past the old limit, in random order
      int grown = limit + r.nextInt(1000);
      TreeSet<Integer> slots = randomSet(r, 1 + r.nextInt(100), grown);
      int[] ops = new int[slots.size()];
      int i = 0;
      for (int slot : slots) {
        ops[i++] = PatchOps.op(slot, r.nextBoolean());
      }
      int[] shuffled = ops.clone();
      for (int j = shuffled.length - 1; j > 0; j--) {
        int k = r.nextInt(j + 1);
        int t = shuffled[j];
        shuffled[j] = shuffled[k];
        shuffled[k] = t;
      }
      SlotSet sorted = SlotSet.patch(old, ops, ops.length, grown, new int[grown]);
      SlotSet unsorted = SlotSet.patch(old, shuffled, shuffled.length, grown, new int[grown]);
      assertThat(unsorted).isEqualTo(sorted);
      assertThat(unsorted.toArray()).isEqualTo(sorted.toArray());
      assertThat(unsorted.hash).isEqualTo(sorted.hash);
    }
  }

  @Test
  void aLeaveThenAJoinOfOneSlotKeepsItAndRepeatedJoinsAddOnce() {
    SlotSet set = build(new TreeSet<>(Arrays.asList(3, 7)), 100);
    int[] ops = {PatchOps.op(5, true), PatchOps.op(5, true), PatchOps.op(7, false),
        PatchOps.op(7, true)};
    SlotSet got = SlotSet.patch(set, ops, ops.length, 100, new int[100]);
    assertThat(got.toArray()).containsExactly(3, 5, 7);
    assertThat(SlotSet.patch(got, new int[] {PatchOps.op(3, false), PatchOps.op(5, false),
        PatchOps.op(7, false)}, 3, 100, new int[100])).isSameAs(SlotSet.EMPTY);
  }

  @Test
  void equalityIgnoresTheFormAndTheRoaringViewHasTheMembers() {
    TreeSet<Integer> members = randomSet(new SplittableRandom(3), 300, 8000);
    SlotSet sparse = build(members, 100_000); // 300 < 2 x 1563 words: sorted ints
    SlotSet dense = build(members, 8000); // 300 >= 2 x 125 words: a bitset
    assertThat(sparse.isDense()).isFalse();
    assertThat(dense.isDense()).isTrue();
    assertThat(sparse).isEqualTo(dense).hasSameHashCodeAs(dense);
    assertThat(dense).isEqualTo(sparse);
    RoaringBitmap expected = RoaringBitmap.bitmapOf(toInts(members));
    assertThat(dense.roaring()).isEqualTo(expected);
    assertThat(dense.roaring()).isSameAs(dense.roaring());
    assertThat(SlotSet.of(expected, 8000)).isEqualTo(sparse);
    TreeSet<Integer> other = new TreeSet<>(members);
    other.remove(other.first());
    other.add(7999);
    assertThat(build(other, 8000)).isNotEqualTo(dense);
  }

  @Test
  void theBuilderChecksItsCount() {
    SlotSet.Builder b = new SlotSet.Builder(2, 10);
    b.add(4);
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("added 1 slots (expected: 2)");
    assertThat(new SlotSet.Builder(0, 10).build()).isSameAs(SlotSet.EMPTY);
  }

  static TreeSet<Integer> randomSet(SplittableRandom r, int size, int limit) {
    TreeSet<Integer> s = new TreeSet<>();
    while (s.size() < size) {
      s.add(r.nextInt(limit));
    }
    return s;
  }

  static SlotSet build(TreeSet<Integer> members, int limit) {
    SlotSet.Builder b = new SlotSet.Builder(members.size(), limit);
    for (int m : members) {
      b.add(m);
    }
    return b.build();
  }

  static int[] toInts(TreeSet<Integer> s) {
    return s.stream().mapToInt(Integer::intValue).toArray();
  }

  static long hashOf(TreeSet<Integer> s) {
    long h = 0;
    for (int v : s) {
      h ^= SlotSet.mix(v);
    }
    return h;
  }
}

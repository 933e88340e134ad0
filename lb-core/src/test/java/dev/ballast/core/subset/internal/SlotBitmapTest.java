package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** The block-copy patch of slot bitmaps against RoaringBitmap's own add and remove. */
class SlotBitmapTest {

  private final char[] scratch = new char[SlotBitmap.LIMIT];

  @Test
  void patchEqualsAddAndRemoveAcrossArrayAndWordForms() {
    SplittableRandom r = new SplittableRandom(11);
    int arrayToWords = 0;
    int wordsToArray = 0;
    for (int round = 0; round < 3000; round++) {
      int limit = 1 + r.nextInt(r.nextBoolean() ? 9000 : SlotBitmap.LIMIT);
      // sizes around Roaring's 4096 threshold often enough to cross it both ways
      int size = r.nextInt(4) == 0 ? 4000 + r.nextInt(200) : r.nextInt(Math.min(limit, 6000));
      TreeSet<Integer> members = new TreeSet<>();
      while (members.size() < Math.min(size, limit)) {
        members.add(r.nextInt(limit));
      }
      RoaringBitmap old = build(members, limit);
      RoaringBitmap expected = old.clone();
      int nOps = r.nextInt(300);
      int[] ops = new int[nOps];
      for (int i = 0; i < nOps; i++) {
        int slot = r.nextInt(limit);
        // joining a member or leaving a non-member must change nothing
        ops[i] = PatchOps.op(slot, r.nextBoolean());
      }
      Arrays.sort(ops);
      for (int op : ops) {
        if ((op & 1) != 0) {
          expected.add(op >>> 1);
        } else {
          expected.remove(op >>> 1);
        }
      }
      RoaringBitmap got = PatchOps.merge(old, ops, nOps, limit, scratch);
      assertThat(got).as("round %d", round).isEqualTo(expected);
      assertThat(SlotBitmap.contentHash(got)).isEqualTo(hashOf(expected));
      if (got.equals(old)) {
        assertThat(got).as("no change gives the old bitmap itself").isSameAs(old);
      }
      if (old.getCardinality() <= SlotBitmap.MAX_ARRAY && got.getCardinality() > 4096) {
        arrayToWords++;
      }
      if (old.getCardinality() > SlotBitmap.MAX_ARRAY && got.getCardinality() <= 4096) {
        wordsToArray++;
      }
      // the input is never modified
      assertThat(old).isEqualTo(build(members, limit));
    }
    assertThat(arrayToWords).isGreaterThan(10);
    assertThat(wordsToArray).isGreaterThan(10);
  }

  @Test
  void patchFromNothingAndToNothing() {
    int[] joins = {PatchOps.op(3, true), PatchOps.op(70000 - 69990, true)};
    Arrays.sort(joins);
    RoaringBitmap made = PatchOps.merge(null, joins, 2, 100, scratch);
    assertThat(made).isEqualTo(RoaringBitmap.bitmapOf(3, 10));
    int[] leaves = {PatchOps.op(3, false), PatchOps.op(10, false)};
    assertThat(PatchOps.merge(made, leaves, 2, 100, scratch).isEmpty()).isTrue();
  }

  @Test
  void largerSetsTakeThePlainMerge() {
    RoaringBitmap old = RoaringBitmap.bitmapOf(1, 70000, 200000);
    int[] ops = {PatchOps.op(1, false), PatchOps.op(5, true), PatchOps.op(200000, true),
        PatchOps.op(300000, true)};
    RoaringBitmap got = PatchOps.merge(old, ops, ops.length, 400000, scratch);
    assertThat(got).isEqualTo(RoaringBitmap.bitmapOf(5, 70000, 200000, 300000));
    assertThat(old).isEqualTo(RoaringBitmap.bitmapOf(1, 70000, 200000));
  }

  @Test
  void searchAgreesWithBinarySearchOnSkewedArrays() {
    SplittableRandom r = new SplittableRandom(5);
    for (int round = 0; round < 2000; round++) {
      TreeSet<Integer> set = new TreeSet<>();
      int n = 1 + r.nextInt(500);
      // half the rounds clustered, so that interpolation guesses badly
      int spread = r.nextBoolean() ? 65536 : 1 + r.nextInt(2000);
      while (set.size() < n && set.size() < spread) {
        set.add(r.nextInt(spread));
      }
      char[] a = new char[set.size()];
      int i = 0;
      for (int v : set) {
        a[i++] = (char) v;
      }
      for (int q = 0; q < 50; q++) {
        int from = r.nextInt(a.length + 1);
        int to = from + r.nextInt(a.length - from + 1);
        int key = r.nextInt(Math.min(65536, spread + 10));
        assertThat(SlotBitmap.search(a, from, to, key)).as("round %d", round)
            .isEqualTo(Arrays.binarySearch(a, from, to, (char) key));
      }
    }
  }

  @Test
  void aMutatedCloneIsAPlainIndependentBitmap() {
    int[] joins = {PatchOps.op(1, true), PatchOps.op(2, true)};
    RoaringBitmap bm = PatchOps.merge(null, joins, 2, 100, scratch);
    assertThat(bm).isInstanceOf(SlotBitmap.class);
    RoaringBitmap copy = bm.clone();
    assertThat(copy).isNotInstanceOf(SlotBitmap.class).isEqualTo(bm);
    copy.add(50);
    assertThat(bm).isEqualTo(RoaringBitmap.bitmapOf(1, 2));
  }

  private static RoaringBitmap build(TreeSet<Integer> members, int limit) {
    if (members.isEmpty()) {
      return new RoaringBitmap();
    }
    ExactBitmapBuilder b = new ExactBitmapBuilder(members.size(), limit);
    for (int m : members) {
      b.add(m);
    }
    return b.get();
  }

  private static long hashOf(RoaringBitmap bm) {
    long h = 0;
    for (int v : bm) {
      h ^= SlotBitmap.mix(v);
    }
    return h;
  }
}

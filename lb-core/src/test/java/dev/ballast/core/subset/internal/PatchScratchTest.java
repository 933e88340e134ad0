package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The packed layout of value ids that a patch lists its changes with. */
class PatchScratchTest {

  private static List<List<String>> names(int... counts) {
    List<List<String>> names = new ArrayList<>();
    for (int c : counts) {
      names.add(Collections.nCopies(c, "v"));
    }
    return names;
  }

  @Test
  void eachKeyTakesTheBitsOfItsLargestIdAndAKeyWithOneValueNone() {
    PatchScratch.Packed p = new PatchScratch(4).packed(names(1, 2, 3, 5));
    // ids 0; 0-1; 0-2; 0-4: 0, 1, 2 and 3 bits
    assertThat(p.width).containsExactly(0, 1, 2, 3);
    assertThat(p.shift).containsExactly(0, 0, 1, 3);
    assertThat(p.mask(new int[] {0})).isZero();
    assertThat(p.mask(new int[] {1, 3})).isEqualTo(0b111001L);
  }

  @Test
  void narrowKeysGoBelowWideOnes() {
    // widths 3, 0, 2, 13: laid out as key 1, key 2, key 0, key 3
    PatchScratch.Packed p = new PatchScratch(4).packed(names(5, 1, 3, 5000));
    assertThat(p.shift).containsExactly(2, 0, 0, 5);
    // a selector without the wide key spans 5 bits; one with it, 18
    assertThat(PatchScratch.Packed.span(p.mask(new int[] {0, 2}))).isEqualTo(5);
    assertThat(PatchScratch.Packed.span(p.mask(new int[] {2, 3}))).isEqualTo(18);
    assertThat(PatchScratch.Packed.span(p.mask(new int[] {3}))).isEqualTo(13);
    assertThat(PatchScratch.Packed.span(0)).isZero();
  }

  @Test
  void theLayoutFollowsTheWidthsOfEachPatch() {
    PatchScratch scratch = new PatchScratch(3);
    PatchScratch.Packed p = scratch.packed(names(300, 3, 20));
    // widths 9, 2, 5: key 1, key 2, key 0
    assertThat(p.shift).containsExactly(7, 0, 2);
    p.done();
    // key 1 grows past the others (12 bits): key 2, key 0, key 1
    p = scratch.packed(names(300, 3000, 20));
    assertThat(p.shift).containsExactly(5, 14, 0);
    // selector {1} spans its own 12 bits, from bit 14: its combination is the id itself
    int[] ids = {299, 2999, 19};
    long mask = p.mask(new int[] {1});
    assertThat(PatchScratch.Packed.span(mask)).isEqualTo(12);
    int low = Long.numberOfTrailingZeros(mask);
    int at = (int) ((p.pack(ids) & mask) >>> low);
    assertThat(at).isEqualTo(2999);
    p.unpack(at, low, new int[] {1});
    assertThat(p.ids[1]).isEqualTo(2999);
    // {0, 2} spans 14 bits: listed entry by entry
    assertThat(PatchScratch.Packed.span(p.mask(new int[] {0, 2}))).isEqualTo(14);
  }

  @Test
  void packedIdsComeBackUnderEverySelectorsMask() {
    SplittableRandom r = new SplittableRandom(7);
    int packedSelectors = 0;
    for (int round = 0; round < 2000; round++) {
      int nk = 1 + r.nextInt(6);
      int[] counts = new int[nk];
      for (int k = 0; k < nk; k++) {
        counts[k] = 1 + (r.nextInt(4) == 0 ? r.nextInt(9000) : r.nextInt(8));
      }
      PatchScratch.Packed p = new PatchScratch(nk).packed(names(counts));
      assertThat(p).isNotNull();
      int[] ids = new int[nk];
      for (int k = 0; k < nk; k++) {
        // -1: the endpoint has no such label
        ids[k] = r.nextInt(5) == 0 ? -1 : r.nextInt(counts[k]);
      }
      long packed = p.pack(ids);
      int[] pos = selector(r, nk);
      long mask = p.mask(pos);
      int span = PatchScratch.Packed.span(mask);
      if (span > PatchScratch.Packed.MAX_BITS) {
        continue;
      }
      packedSelectors++;
      int low = mask == 0 ? 0 : Long.numberOfTrailingZeros(mask);
      int at = (int) ((packed & mask) >>> low);
      p.prepare(span);
      assertThat(at).isLessThan(p.size.length).isLessThan(p.words * 64);
      p.unpack(at, low, pos);
      for (int k : pos) {
        assertThat(p.ids[k]).isEqualTo(Math.max(ids[k], 0));
      }
    }
    assertThat(packedSelectors).isGreaterThan(1000);
    assertThat(new PatchScratch(1).packed(names(3)).pack(null)).isZero();
  }

  private static int[] selector(SplittableRandom r, int nk) {
    List<Integer> keys = new ArrayList<>();
    for (int k = 0; k < nk; k++) {
      if (keys.isEmpty() || r.nextBoolean()) {
        keys.add(k);
      }
    }
    return keys.stream().mapToInt(Integer::intValue).toArray();
  }

  @Test
  void aSelectorSpanningTwelveBitsIsPackedThirteenIsNot() {
    // 4096 values: ids up to 4095, 12 bits; one more value needs 13
    PatchScratch.Packed p = new PatchScratch(2).packed(names(4096, 4097));
    assertThat(PatchScratch.Packed.span(p.mask(new int[] {0}))).isEqualTo(12);
    assertThat(PatchScratch.Packed.span(p.mask(new int[] {1}))).isEqualTo(13);
    p.prepare(12);
    assertThat(p.size).hasSizeGreaterThanOrEqualTo(4096);
    assertThat(p.words).isEqualTo(64);
  }

  @Test
  void keysNeedingMoreThan64BitsOrMoreThan64KeysAreNotPacked() {
    // five keys of 14 bits: 70
    assertThat(new PatchScratch(5).packed(names(1 << 14, 1 << 14, 1 << 14, 1 << 14, 1 << 14)))
        .isNull();
    assertThat(new PatchScratch(4).packed(names(1 << 14, 1 << 14, 1 << 14, 1 << 14)))
        .isNotNull();
    int[] ones = new int[65];
    Arrays.fill(ones, 1);
    assertThat(new PatchScratch(65).packed(names(ones))).isNull();
    assertThat(new PatchScratch(64).packed(names(Arrays.copyOf(ones, 64)))).isNotNull();
  }

  @Test
  void aListingThatDidNotFinishLeavesNoChangesForTheNextPatch() {
    PatchScratch s = new PatchScratch(1);
    PatchScratch.Packed p = s.packed(names(3));
    p.prepare(2);
    p.size[2] = 5; // a change summed, then the patch failed before listing it
    p.touched[0] = 1L << 2;
    s.clear();
    PatchScratch.Packed next = s.packed(names(3));
    next.prepare(2);
    assertThat(next.size[2]).isZero();
    assertThat(next.touched[0]).isZero();
    next.done();
    s.clear();
    assertThat(s.packed(names(3))).isSameAs(next);
  }
}

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
    assertThat(p.shift).containsExactly(0, 0, 1, 3, 6);
    assertThat(p.mask(new int[] {0})).isZero();
    assertThat(p.mask(new int[] {1, 3})).isEqualTo(0b111001L);
  }

  @Test
  void packedIdsComeBackUnderEverySelectorsMask() {
    SplittableRandom r = new SplittableRandom(7);
    for (int round = 0; round < 500; round++) {
      int nk = 1 + r.nextInt(4);
      int[] counts = new int[nk];
      for (int k = 0; k < nk; k++) {
        counts[k] = 1 + r.nextInt(8); // at most 3 bits a key, 12 in all
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
      int at = (int) (packed & p.mask(pos));
      assertThat(at).isLessThan(p.size.length);
      p.unpack(at, pos);
      for (int k : pos) {
        assertThat(p.ids[k]).isEqualTo(Math.max(ids[k], 0));
      }
    }
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
  void twelveBitsArePackedThirteenAreNot() {
    // 4096 values: ids up to 4095, 12 bits; one more value needs 13
    assertThat(new PatchScratch(1).packed(names(4096))).isNotNull();
    assertThat(new PatchScratch(1).packed(names(4097))).isNull();
    assertThat(new PatchScratch(2).packed(names(64, 65))).isNull();
    PatchScratch.Packed p = new PatchScratch(2).packed(names(64, 64));
    assertThat(p.size).hasSizeGreaterThanOrEqualTo(4096);
    assertThat(p.words).isEqualTo(64);
  }

  @Test
  void moreThan64KeysAreNotPackedEvenWithoutBits() {
    int[] ones = new int[65];
    Arrays.fill(ones, 1);
    assertThat(new PatchScratch(65).packed(names(ones))).isNull();
    assertThat(new PatchScratch(64).packed(names(Arrays.copyOf(ones, 64))))
        .isNotNull();
  }

  @Test
  void aListingThatDidNotFinishLeavesNoChangesForTheNextPatch() {
    PatchScratch s = new PatchScratch(1);
    PatchScratch.Packed p = s.packed(names(3));
    p.size[2] = 5; // a change summed, then the patch failed before listing it
    p.touched[0] = 1L << 2;
    s.clear();
    PatchScratch.Packed next = s.packed(names(3));
    assertThat(next.size[2]).isZero();
    assertThat(next.touched[0]).isZero();
    next.done();
    next.size[1] = 0;
    s.clear();
    assertThat(s.packed(names(3))).isSameAs(next);
  }
}

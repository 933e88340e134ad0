package dev.ballast.core.internal;

/**
 * Vose's alias method (M. D. Vose, "A linear algorithm for generating random numbers with a given
 * distribution", IEEE TSE 1991): index i is drawn with probability {@code weights[i] / Σ weights}
 * in O(1). Each index gets a column of height 1 split between itself and one alias; a draw takes
 * a column and a coin, both from 32 random bits (multiply-shift, Lemire 2019, whose remainder is
 * the coin). Built in O(N).
 */
public final class AliasTable {

  // Per column, one read per draw: in the high half its own share as a threshold on 32 random
  // bits (2^32 − 1 for a whole column, whose alias is itself), in the low half its alias.
  private final long[] columns;

  /** Builds the table of non-negative weights with a positive sum, in O(N). */
  public AliasTable(int[] weights) {
    int n = weights.length;
    double[] probability = new double[n];
    int[] alias = new int[n];
    long total = 0;
    for (int w : weights) {
      total += w;
    }
    // Scaled so that the mean column is exactly 1.
    double[] scaled = new double[n];
    int[] small = new int[n];
    int[] large = new int[n];
    int s = 0;
    int l = 0;
    for (int i = 0; i < n; i++) {
      scaled[i] = (double) weights[i] * n / total;
      if (scaled[i] < 1.0) {
        small[s++] = i;
      } else {
        large[l++] = i;
      }
    }
    while (s > 0 && l > 0) {
      int lo = small[--s];
      int hi = large[--l];
      probability[lo] = scaled[lo];
      alias[lo] = hi;
      scaled[hi] = (scaled[hi] + scaled[lo]) - 1.0;
      if (scaled[hi] < 1.0) {
        small[s++] = hi;
      } else {
        large[l++] = hi;
      }
    }
    // What is left is 1 up to rounding.
    while (l > 0) {
      int i = large[--l];
      probability[i] = 1.0;
      alias[i] = i;
    }
    while (s > 0) {
      int i = small[--s];
      probability[i] = 1.0;
      alias[i] = i;
    }
    columns = new long[n];
    for (int i = 0; i < n; i++) {
      long threshold = Math.min(0xFFFFFFFFL, (long) Math.ceil(probability[i] * 0x1p32));
      columns[i] = threshold << 32 | alias[i];
    }
  }

  /**
   * Returns an index drawn with the table's probabilities, given 32 random bits (in the low half
   * of {@code bits32}): {@code bits32 × N} holds the column in its high 32 bits and, in its low
   * 32, where in the column the draw fell, uniform too, which serves as the coin. The choice
   * between the column and its alias takes no branch: which one wins is a coin toss the
   * processor cannot predict.
   */
  public int draw(long bits32) {
    long x = bits32 * columns.length;
    int column = (int) (x >>> 32);
    long c = columns[column];
    long own = ((x & 0xFFFFFFFFL) - (c >>> 32)) >> 63; // all ones if the coin is under the share
    return (int) ((column & own) | (c & ~own));
  }
}

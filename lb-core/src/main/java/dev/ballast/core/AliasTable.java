package dev.ballast.core;

/**
 * Vose's alias method (M. D. Vose, "A linear algorithm for generating random numbers with a given
 * distribution", IEEE TSE 1991): index i is drawn with probability {@code weights[i] / Σ weights}
 * in O(1). Each index gets a column of height 1 split between itself and one alias; a draw takes
 * a column and a coin, both from one random 64-bit number (high half for the column, by
 * multiply-shift, low half for the coin). Built in O(N).
 */
final class AliasTable {

  private final double[] probability;
  private final int[] alias;

  AliasTable(int[] weights) {
    int n = weights.length;
    probability = new double[n];
    alias = new int[n];
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
  }

  /** Returns an index drawn with the table's probabilities, given 64 random bits. */
  int draw(long random) {
    int column = (int) (((random >>> 32) * probability.length) >>> 32);
    double coin = (random & 0xFFFFFFFFL) * 0x1p-32;
    return coin < probability[column] ? column : alias[column];
  }
}

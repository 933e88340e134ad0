package dev.ballast.core;

/**
 * Weighted random choice in O(1) per pick with Vose's alias method (M. D. Vose, "A linear
 * algorithm for generating random numbers with a given distribution", IEEE TSE 1991): each node
 * gets a column of height 1 split between itself and one alias; a pick draws a column and a
 * coin. The table is built in O(N) at update.
 *
 * @param <T> the thing being balanced
 */
public final class WeightedRandom<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code weighted_random}. */
  public static final String NAME = "weighted_random";

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public WeightedRandom() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's random source, effort and panic settings. */
  public WeightedRandom(BalancerConfig config) {
    super(NAME, config, LoadMetric.NONE);
  }

  @Override
  Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return new AliasSnapshot<>(nodes, weights, config);
  }

  private static final class AliasSnapshot<T> extends Snapshot<T> {
    private final double[] probability;
    private final int[] alias;

    AliasSnapshot(Node<T>[] nodes, int[] weights, BalancerConfig config) {
      super(NAME, nodes, config);
      int n = nodes.length;
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

    @Override
    Node<T> next() {
      int column = random.nextInt(nodes.length);
      return random.nextDouble() < probability[column] ? nodes[column] : nodes[alias[column]];
    }
  }
}

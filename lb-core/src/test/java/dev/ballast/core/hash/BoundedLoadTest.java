package dev.ballast.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import java.util.ArrayDeque;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bounded loads on a skewed key stream: keys drawn from Zipf(1.1) over 10,000 keys, 400 requests
 * in flight (each completes 400 picks after it was made). With c = 1.25 no backend ever holds
 * more than ceil(c x its weight's share of the requests in flight); without the bound, the
 * hottest key's backend does.
 */
class BoundedLoadTest {

  private static final int KEYS = 10_000;
  private static final int IN_FLIGHT = 400;
  private static final int PICKS = 50_000;

  @ParameterizedTest(name = "{0}, weights {1}")
  @CsvSource({"ring_hash, equal", "maglev, equal", "ketama, equal", "ring_hash, 1-4",
      "maglev, 1-4"})
  void noBackendIsEverAboveItsBound(String algorithm, String weights) {
    int[] w = new int[20];
    for (int i = 0; i < w.length; i++) {
      w[i] = weights.equals("equal") ? 1 : 1 + i % 4;
    }
    HashConfig bounded = HashConfig.builder().loadBound(1.25).build();

    int worst = run(algorithm, w, bounded, 1.25);
    int unbounded = run(algorithm, w, HashConfig.defaults(), 1.25);

    assertThat(worst).as("largest excess over the bound, bounded").isLessThanOrEqualTo(0);
    assertThat(unbounded).as("largest excess over the bound, unbounded").isPositive();
  }

  /**
   * Streams the keys and returns the largest {@code pending - ceil(c * in flight * w / W)} seen
   * on any node right after a pick.
   */
  private static int run(String algorithm, int[] weights, HashConfig hashConfig, double c) {
    HashBalancer<Integer> b = (HashBalancer<Integer>) Algorithm.fromName(algorithm)
        .<Integer>create(Fixtures.seeded(1), hashConfig);
    List<Endpoint> es = Fixtures.endpoints(weights);
    b.update(es, es::indexOf);
    List<Node<Integer>> nodes = b.nodes();
    long total = 0;
    for (int w : weights) {
      total += w;
    }
    double[] cdf = zipf(1.1);
    SplittableRandom random = new SplittableRandom(11);
    ArrayDeque<Node<Integer>> flying = new ArrayDeque<>();
    int worst = Integer.MIN_VALUE;
    for (int i = 0; i < PICKS; i++) {
      int key = java.util.Arrays.binarySearch(cdf, random.nextDouble());
      flying.add(b.pick("key-" + (key < 0 ? -key - 1 : key)));
      for (Node<Integer> n : nodes) {
        long bound = (long) Math.ceil(c * flying.size() * n.weight() / total);
        worst = Math.max(worst, (int) (n.pending() - bound));
      }
      if (flying.size() == IN_FLIGHT) {
        flying.poll().complete(1_000_000, true);
      }
    }
    return worst;
  }

  /** The cumulative distribution of Zipf(s) over KEYS keys. */
  private static double[] zipf(double s) {
    double[] cdf = new double[KEYS];
    double sum = 0;
    for (int k = 0; k < KEYS; k++) {
      sum += 1 / Math.pow(k + 1, s);
      cdf[k] = sum;
    }
    for (int k = 0; k < KEYS; k++) {
      cdf[k] /= sum;
    }
    return cdf;
  }
}

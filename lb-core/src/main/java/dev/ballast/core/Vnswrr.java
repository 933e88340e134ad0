package dev.ballast.core;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tengine's virtual-node smooth weighted round robin (VNSWRR; Tengine PR 1306 and the article
 * that introduced it): SWRR's order, at O(1) per pick.
 *
 * <p>The snapshot holds a ring of {@code T = Σ weight/gcd} virtual nodes whose order is the SWRR
 * sequence of the reduced weights, so every run of {@code T} consecutive picks gives each node
 * exactly {@code weight/gcd} picks, spread smoothly. The ring is filled lazily in batches of
 * {@code min(N, remaining)} virtual nodes as picks reach the unfilled part, so no single request
 * pays for the whole O(N·T) fill; once full, a pick is one atomic increment and an array read.
 * Each snapshot starts at a random position in {@code [0, N)}: Tengine found that instances all
 * starting at position 0 sent their first requests to the heaviest node together. A pick that
 * lands on a node that is not open moves on to the next position. Equal weights degenerate to
 * plain round robin, with no ring at all.
 *
 * <p>Filling is done by whichever picker wins a flag, never waiting: a concurrent picker that
 * finds its position unfilled meanwhile reuses an already filled position. The ring holds at most
 * {@value #MAX_RING} virtual nodes (64 MiB); larger weight sums are rejected at update.
 *
 * @param <T> the thing being balanced
 */
public final class Vnswrr<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code vnswrr}. */
  public static final String NAME = "vnswrr";

  /** The largest ring, in virtual nodes ({@code Σ weight/gcd}). */
  public static final int MAX_RING = 1 << 24;

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public Vnswrr() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's random source, effort and panic settings. */
  public Vnswrr(BalancerConfig config) {
    super(NAME, config, LoadMetric.NONE);
  }

  @Override
  void checkWeights(int[] weights) {
    long size = 0;
    int g = gcd(weights);
    for (int w : weights) {
      size += w / g;
    }
    if (size > MAX_RING) {
      throw new IllegalArgumentException("weights: Σ weight/gcd = " + size
          + " virtual nodes (expected: <= " + MAX_RING + "; use smaller or more even weights)");
    }
  }

  @Override
  Snapshot<T> snapshot(Node<T>[] nodes, int[] weights) {
    int g = gcd(weights);
    int[] reduced = new int[weights.length];
    int size = 0; // at most MAX_RING: checkWeights ran first
    for (int i = 0; i < weights.length; i++) {
      reduced[i] = weights[i] / g;
      size += reduced[i];
    }
    if (size == nodes.length) {
      return new RoundRobin.RoundRobinSnapshot<>(NAME, nodes, config);
    }
    return new RingSnapshot<>(nodes, reduced, size, config);
  }

  private static int gcd(int[] weights) {
    int g = 0;
    for (int w : weights) {
      g = gcd(g, w);
    }
    return g;
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  private static final class RingSnapshot<T> extends Snapshot<T> {
    private final int[] ring;
    private final int[] weights;
    private final long[] current;
    private final long total;
    private final AtomicLong position;
    private final AtomicBoolean filling = new AtomicBoolean();
    private volatile int filled;

    RingSnapshot(Node<T>[] nodes, int[] weights, int size, BalancerConfig config) {
      super(NAME, nodes, config);
      this.ring = new int[size];
      this.weights = weights;
      this.current = new long[nodes.length];
      this.total = size;
      this.position = new AtomicLong(config.random().nextInt(nodes.length));
    }

    @Override
    Node<T> next() {
      long c = position.getAndIncrement();
      int p = (int) (c % ring.length);
      int f = filled;
      if (p >= f) {
        f = fill(p);
        if (p >= f) {
          // Another picker is filling: reuse a filled position (or, before the first batch
          // exists, fall back to plain round robin).
          return f == 0 ? nodes[(int) (c % nodes.length)] : nodes[ring[p % f]];
        }
      }
      return nodes[ring[p]];
    }

    /** Fills batches of min(N, remaining) until position p is filled, unless another filler is. */
    private int fill(int p) {
      if (!filling.compareAndSet(false, true)) {
        return filled;
      }
      try {
        int f = filled;
        while (f <= p) {
          int end = (int) Math.min(ring.length, (long) f + nodes.length);
          for (int k = f; k < end; k++) {
            ring[k] = swrrStep();
          }
          f = end;
          filled = f;
        }
        return f;
      } finally {
        filling.set(false);
      }
    }

    /** One step of nginx's SWRR over the reduced weights (all nodes, availability ignored). */
    private int swrrStep() {
      int best = 0;
      for (int i = 0; i < weights.length; i++) {
        current[i] += weights[i];
        if (current[i] > current[best]) {
          best = i;
        }
      }
      current[best] -= total;
      return best;
    }
  }
}

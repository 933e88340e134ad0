package dev.ballast.core.roundrobin;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.IntMath;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tengine's virtual-node smooth weighted round robin (VNSWRR; Tengine PR 1306 and the article
 * that introduced it): SWRR's order, at O(1) per pick.
 *
 * <p>The snapshot holds a ring of {@code T = Σ weight/gcd} virtual nodes whose order is the SWRR
 * sequence of the reduced weights, so every run of {@code T} consecutive picks gives each node
 * exactly {@code weight/gcd} picks, spread smoothly. The ring is filled lazily in batches of
 * {@code min(N, remaining)} virtual nodes as picks reach the unfilled part, so no single request
 * pays for the whole fill; once full, a pick is one atomic increment and an array read. Each
 * virtual node is found in O(D) for D distinct weights ({@link SwrrSequence}), not nginx's O(N),
 * and the ring holds the nodes themselves, so a pick reads the ring slot and then the node.
 * Each snapshot starts at a random position in {@code [0, N)}: Tengine found that instances all
 * starting at position 0 sent their first requests to the heaviest node together. A pick that
 * lands on a node that is not open moves on to the next position. Equal weights degenerate to
 * plain round robin, with no ring at all.
 *
 * <p>Filling is done by whichever picker wins a flag, never waiting: a concurrent picker that
 * finds its position unfilled meanwhile reuses an already filled position. The ring holds at most
 * {@value #MAX_RING} virtual nodes (64 MiB); larger weight sums are rejected at update.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.Vnswrr} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class Vnswrr<T> extends AbstractBalancer<T> {

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
  protected void checkWeights(int[] weights) {
    checkRing(weights);
  }

  /** Rejects weights whose ring would hold more than {@value #MAX_RING} virtual nodes. */
  static void checkRing(int[] weights) {
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
  protected void checkRamp(int[] ramped, int[] levels) {
    RampRing.check(ramped, levels);
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return levels == null
        ? ringOf(NAME, nodes, weights, config)
        : RampRing.snapshot(NAME, nodes, weights, levels, config);
  }

  /**
   * Returns the weighted round robin of the nodes: a ring of {@code Σ weight/gcd} virtual nodes,
   * or plain round robin if the weights are equal: for a balancer on the engine that weighs its
   * nodes its own way ({@code weighted_round_robin}).
   *
   * @param weights one per node, each positive, the ring at most {@value #MAX_RING} virtual nodes
   * @throws IllegalArgumentException naming the bad weight or the ring's size
   */
  public static <T> Snapshot<T> ring(String name, Node<T>[] nodes, int[] weights,
      BalancerConfig config) {
    if (nodes.length == 0 || weights.length != nodes.length) {
      throw new IllegalArgumentException("weights: " + weights.length + " for " + nodes.length
          + " nodes (expected: one per node, at least one node)");
    }
    for (int i = 0; i < weights.length; i++) {
      if (weights[i] <= 0) {
        throw new IllegalArgumentException("weights[" + i + "]: " + weights[i]
            + " (expected: > 0)");
      }
    }
    checkRing(weights);
    return ringOf(name, nodes, weights, config);
  }

  /** {@link #ring} of weights already checked. */
  static <T> Snapshot<T> ringOf(String name, Node<T>[] nodes, int[] weights,
      BalancerConfig config) {
    int g = gcd(weights);
    int[] reduced = new int[weights.length];
    int size = 0; // at most MAX_RING: checked before
    for (int i = 0; i < weights.length; i++) {
      reduced[i] = weights[i] / g;
      size += reduced[i];
    }
    if (size == nodes.length) {
      return new RoundRobin.RoundRobinSnapshot<>(name, nodes, config);
    }
    return new RingSnapshot<>(name, nodes, reduced, size, config);
  }

  private static int gcd(int[] weights) {
    int g = 0;
    for (int w : weights) {
      g = IntMath.gcd(g, w);
    }
    return g;
  }

  private static final class RingSnapshot<T> extends Snapshot<T> {
    // Virtual nodes in SWRR order, as the nodes themselves: a pick reads one slot, no index.
    private final Node<T>[] ring;
    private final SwrrSequence sequence;
    private final AtomicInteger position;
    private final AtomicBoolean filling = new AtomicBoolean();
    private volatile int filled;

    @SuppressWarnings("unchecked")
    RingSnapshot(String name, Node<T>[] nodes, int[] weights, int size, BalancerConfig config) {
      super(name, nodes, config);
      this.ring = new Node[size];
      this.sequence = new SwrrSequence(weights);
      this.position = new AtomicInteger(config.random().nextInt(nodes.length));
    }

    @Override
    public Node<T> next() {
      // Masked to stay positive: after 2^31 picks the walk restarts at slot 0, once.
      int c = position.getAndIncrement() & Integer.MAX_VALUE;
      int p = c % ring.length;
      int f = filled;
      if (p >= f) {
        f = fill(p);
        if (p >= f) {
          // Another picker is filling: reuse a filled position (or, before the first batch
          // exists, fall back to plain round robin).
          return f == 0 ? nodes[c % nodes.length] : ring[p % f];
        }
      }
      return ring[p];
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
            ring[k] = nodes[sequence.next()];
          }
          f = end;
          filled = f;
        }
        return f;
      } finally {
        filling.set(false);
      }
    }
  }

  /**
   * nginx's SWRR sequence over fixed weights (availability ignored), one step in O(D) for D
   * distinct weights instead of nginx's O(N). After t steps node i's current weight is {@code
   * t·w_i − T·k_i}, k_i being its picks so far, and the step takes the largest, the lowest index
   * on a tie. Nodes of equal weight differ only in k_i, so among them the step takes the one
   * picked least, lowest index first: each weight class is taken in index order, its members'
   * picks being {@code K/size} or one more, K the class's picks. A step therefore compares one
   * candidate per class: member {@code K mod size}, current weight {@code t·w − T·(K/size)}.
   * This gives exactly nginx's sequence (checked against the O(N) step in the tests).
   */
  static final class SwrrSequence {
    private final int[] weight;
    private final int[][] members;
    private final long[] picks;
    private final long total;
    private long step;

    SwrrSequence(int[] weights) {
      TreeMap<Integer, List<Integer>> classes = new TreeMap<>();
      long sum = 0;
      for (int i = 0; i < weights.length; i++) {
        classes.computeIfAbsent(weights[i], w -> new ArrayList<>()).add(i);
        sum += weights[i];
      }
      this.total = sum;
      this.weight = new int[classes.size()];
      this.members = new int[classes.size()][];
      this.picks = new long[classes.size()];
      int c = 0;
      for (Map.Entry<Integer, List<Integer>> e : classes.entrySet()) {
        weight[c] = e.getKey();
        members[c++] = e.getValue().stream().mapToInt(Integer::intValue).toArray();
      }
    }

    /** Returns the index of the next node in the sequence. */
    int next() {
      step++;
      int best = -1;
      long bestCurrent = 0;
      int bestNode = 0;
      for (int c = 0; c < weight.length; c++) {
        int size = members[c].length;
        long current = step * weight[c] - total * (picks[c] / size);
        int node = members[c][(int) (picks[c] % size)];
        if (best < 0 || current > bestCurrent || (current == bestCurrent && node < bestNode)) {
          best = c;
          bestCurrent = current;
          bestNode = node;
        }
      }
      picks[best]++;
      return bestNode;
    }
  }
}

package dev.ballast.core;

import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Weighted round robin from the servers' own load reports, as gRPC's {@code
 * weighted_round_robin} (gRFC A58), picking on a {@link Vnswrr} ring instead of A58's
 * scheduler: O(1) and allocation-free per pick.
 *
 * <p>Feed each node its server's reports with {@link Node#reportLoad(LoadReport)} (ORCA per-call
 * trailers or out-of-band reports, Envoy's {@code endpoint-load-metrics} header). A node's
 * weight is its latest report's {@code qps / (utilization + eps / qps × errorUtilizationPenalty)};
 * it counts once reports have come for {@link WeightedRoundRobinConfig#blackoutPeriod()} (10 s)
 * and lapses after {@link WeightedRoundRobinConfig#weightExpirationPeriod()} (3 min) without
 * one. Every {@link WeightedRoundRobinConfig#weightUpdatePeriod()} (1 s) the weights are read
 * again, as A58: nodes without a weight get the mean of the others; weights are held within 0.1
 * and 10 times that mean (A58's bounds, so that no node starves or floods); with fewer than two
 * weights it is plain round robin. They are then scaled to integers (the largest to at most 1000,
 * fewer at many nodes so that the ring holds at most about 100,000 slots) and the ring is rebuilt
 * only if they moved. The endpoints' own weights are not read, as in A58, and slow start does not
 * apply.
 *
 * <p>No timer: one pick in 32 reads the clock, and the first pick past the period recomputes the
 * weights (one picker at a time; the others go on with the current ring), so no thread of lb-core
 * runs in the background. {@link #updateWeights()} does it at once.
 *
 * @param <T> the thing being balanced
 */
public final class WeightedRoundRobin<T> extends AbstractBalancer<T> {

  /** The algorithm's name, A58's: {@code weighted_round_robin}. */
  public static final String NAME = "weighted_round_robin";

  // A58's bounds on a weight, relative to the mean of the known weights.
  static final double MAX_RATIO = 10;
  static final double MIN_RATIO = 0.1;
  // The ring's budget: the largest weight is scaled to at most MAX_SCALE, and the sum to about
  // RING_BUDGET, but the largest never below MIN_SCALE.
  static final int MAX_SCALE = 1000;
  static final int MIN_SCALE = 10;
  static final int RING_BUDGET = 100_000;

  private final WeightedRoundRobinConfig weights;

  /** Creates a balancer with lb-core's and A58's defaults. */
  public WeightedRoundRobin() {
    this(BalancerConfig.defaults(), WeightedRoundRobinConfig.defaults());
  }

  /** Creates a balancer with A58's defaults; uses the config's ticker, random source and effort. */
  public WeightedRoundRobin(BalancerConfig config) {
    this(config, WeightedRoundRobinConfig.defaults());
  }

  /** Creates a balancer; {@code weights} holds A58's settings. */
  public WeightedRoundRobin(BalancerConfig config, WeightedRoundRobinConfig weights) {
    super(NAME, config, new ReportedLoad(config.ticker(), weights, null));
    this.weights = weights;
  }

  /** Returns A58's settings this balancer uses. */
  public WeightedRoundRobinConfig weightConfig() {
    return weights;
  }

  /** Returns how many bad values the reports fed to its nodes held (each was ignored). */
  public long rejectedValues() {
    return ((ReportedLoad) metric).rejected.sum();
  }

  /** Returns how many reports gave no weight (no positive utilization or qps) and were ignored. */
  public long unusableReports() {
    return ((ReportedLoad) metric).unusable.sum();
  }

  /** Reads the weights now and rebuilds the ring if they moved, without waiting for a pick. */
  public void updateWeights() {
    if (current() instanceof WeightSnapshot<T> s) {
      s.update(config.ticker().nanoTime(), true);
    }
  }

  @Override
  Snapshot<T> snapshot(Node<T>[] nodes, int[] ignoredWeights, int[] ignoredLevels) {
    return new WeightSnapshot<>(nodes, config, (ReportedLoad) metric,
        weights.weightUpdatePeriod().toNanos());
  }

  /** Returns the largest scaled weight for n nodes: the ring holds about n × this at most. */
  static int scale(int n) {
    return Math.max(MIN_SCALE, Math.min(MAX_SCALE, RING_BUDGET / n));
  }

  /**
   * Scales A58's weights to integers into {@code out}, as A58's scheduler does before it: nodes
   * without a weight (0) get the mean, the others are held within [0.1, 10] times the mean, and
   * the largest becomes {@code scale}. Returns false when fewer than two nodes have a weight
   * (plain round robin), leaving {@code out} untouched.
   */
  static boolean scaled(double[] w, int scale, int[] out) {
    int known = 0;
    double sum = 0;
    double max = 0;
    for (double x : w) {
      if (x > 0) {
        known++;
        sum += x;
        max = Math.max(max, x);
      }
    }
    if (known < 2) {
      return false;
    }
    double mean = sum / known;
    max = Math.min(max, MAX_RATIO * mean);
    double factor = scale / max;
    int floor = (int) Math.max(1, Math.ceil(factor * mean * MIN_RATIO));
    for (int i = 0; i < w.length; i++) {
      double x = w[i] > 0 ? Math.min(w[i], max) : mean;
      out[i] = (int) Math.max(floor, Math.round(factor * x));
    }
    return true;
  }

  /**
   * The nodes and a ring over their current weights, rebuilt when the weights move: a pick in 32
   * reads the clock and the first past the update period reads the weights again.
   */
  static final class WeightSnapshot<T> extends Snapshot<T> {
    private final BalancerConfig config;
    private final ReportedLoad metric;
    private final long period;
    private final AtomicBoolean updating = new AtomicBoolean();
    // the update's scratch (updating flag held): the weights read, scaled
    private final double[] read;
    private final int[] next;
    // the scaled weights of the current ring, or null for plain round robin (updating flag)
    private int[] current;
    private volatile Snapshot<T> ring;
    private volatile long nextUpdate;
    private int counter; // spaces clock readings out; needs no atomicity

    WeightSnapshot(Node<T>[] nodes, BalancerConfig config, ReportedLoad metric, long period) {
      super(NAME, nodes, config);
      this.config = config;
      this.metric = metric;
      this.period = period;
      this.read = new double[nodes.length];
      this.next = new int[nodes.length];
      this.ring = new RoundRobin.RoundRobinSnapshot<>(NAME, nodes, config);
      update(config.ticker().nanoTime(), true);
    }

    @Override
    Node<T> next() {
      if ((++counter & 31) == 0) {
        long now = config.ticker().nanoTime();
        if (now - nextUpdate >= 0) {
          update(now, false);
        }
      }
      return ring.next();
    }

    /** Reads the weights at {@code now} and swaps in a new ring if they moved; one at a time. */
    void update(long now, boolean force) {
      if (!updating.compareAndSet(false, true)) {
        return;
      }
      try {
        if (!force && now - nextUpdate < 0) {
          return; // another picker just did it
        }
        nextUpdate = now + period;
        for (int i = 0; i < nodes.length; i++) {
          read[i] = metric.weight(nodes[i].reported, now);
        }
        if (!scaled(read, scale(nodes.length), next)) {
          if (current != null) {
            current = null;
            ring = new RoundRobin.RoundRobinSnapshot<>(NAME, nodes, config);
          }
          return;
        }
        if (!Arrays.equals(next, current)) {
          current = next.clone();
          ring = Vnswrr.ring(NAME, nodes, current, config);
        }
      } finally {
        updating.set(false);
      }
    }

    /** Returns the scaled weights of the current ring, or null for plain round robin; tests. */
    int[] currentWeights() {
      return current == null ? null : current.clone();
    }
  }
}

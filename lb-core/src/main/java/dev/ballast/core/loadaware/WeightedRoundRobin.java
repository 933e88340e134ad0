package dev.ballast.core.loadaware;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.roundrobin.RoundRobin;
import dev.ballast.core.roundrobin.Vnswrr;

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
 * only if they moved ({@code ReportSnapshot}). The endpoints' own weights are not read, as in A58, and slow start does not
 * apply.
 *
 * <p>No timer: one pick in 32 reads the clock, and the first pick past the period recomputes the
 * weights (one picker at a time; the others go on with the current ring), so no thread of lb-core
 * runs in the background. {@link #updateWeights()} does it at once.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.WeightedRoundRobin} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class WeightedRoundRobin<T> extends AbstractBalancer<T> {

  /** The algorithm's name, A58's: {@code weighted_round_robin}. */
  public static final String NAME = "weighted_round_robin";

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
    if (current() instanceof ReportSnapshot<T> s) {
      s.update(config.ticker().nanoTime(), true);
    }
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] ignoredWeights, int[] ignoredLevels) {
    ReportedLoad load = (ReportedLoad) metric;
    return new ReportSnapshot<>(NAME, nodes, config, load::weight,
        (ns, scaled) -> scaled == null ? RoundRobin.snapshot(NAME, ns, config)
            : Vnswrr.ring(NAME, ns, scaled, config),
        weights.weightUpdatePeriod().toNanos());
  }
}

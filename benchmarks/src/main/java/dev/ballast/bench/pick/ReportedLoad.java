package dev.ballast.bench.pick;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.loadaware.P2cUtilization;
import dev.ballast.core.loadaware.WeightedRoundRobin;
import java.time.Duration;

/** The report-driven algorithms of {@link PickBenchmark}, with weights fed as load reports. */
final class ReportedLoad {

  private ReportedLoad() {}

  /** Returns the algorithm's balancer with no blackout, so that the first reports count. */
  static Balancer<Integer> balancer(Algorithm a, BalancerConfig config) {
    WeightedRoundRobinConfig reports = WeightedRoundRobinConfig.builder()
        .blackoutPeriod(Duration.ZERO).build();
    return a == Algorithm.WEIGHTED_ROUND_ROBIN ? new WeightedRoundRobin<>(config, reports)
        : new P2cUtilization<>(config, reports);
  }

  /**
   * Each node's server reports utilization 0.5 at {@code 100 × weight} queries per second: an
   * A58 weight proportional to its endpoint's weight. Then the weights are read at once.
   */
  static void feed(Balancer<Integer> b) {
    for (Node<Integer> n : b.nodes()) {
      n.reportLoad(LoadReport.of(0.5, 100.0 * n.weight(), 0));
    }
    if (b instanceof WeightedRoundRobin<Integer> w) {
      w.updateWeights();
    }
  }
}

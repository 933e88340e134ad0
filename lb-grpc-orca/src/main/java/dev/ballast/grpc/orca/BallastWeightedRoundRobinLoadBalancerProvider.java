package dev.ballast.grpc.orca;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code ballast_weighted_round_robin}: gRFC A58's weighted round robin from
 * ORCA reports on lb-core's {@link dev.ballast.core.loadaware.WeightedRoundRobin} (a VNSWRR ring, O(1) and
 * allocation-free per pick). Its config is gRPC's {@code weighted_round_robin} config, e.g.
 * {@code {"blackoutPeriod": "10s", "weightExpirationPeriod": "180s", "weightUpdatePeriod": "1s",
 * "errorUtilizationPenalty": 1.0, "enableOobLoadReport": false, "oobReportingPeriod": "10s"}}
 * (those are the defaults), and Envoy's {@code "metricNamesForComputingUtilization":
 * ["named_metrics.queue"]} (default none). Its name is not gRPC's, since grpc-xds registers
 * {@code weighted_round_robin} itself and both may be on one class path.
 */
public final class BallastWeightedRoundRobinLoadBalancerProvider
    extends ReportingLoadBalancerProvider {

  /** The policy name: {@code ballast_weighted_round_robin}. */
  public static final String POLICY_NAME = "ballast_weighted_round_robin";

  /** Creates the provider with lb-core's default settings. */
  public BallastWeightedRoundRobinLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public BallastWeightedRoundRobinLoadBalancerProvider(BalancerConfig base) {
    super("weighted_round_robin", POLICY_NAME, base);
  }
}

package dev.ballast.grpc.orca;

import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.AlgorithmLoadBalancerProvider;

/**
 * A gRPC policy over an lb-core algorithm that reads load reports, fed by ORCA: per-call reports
 * from each call's {@code endpoint-load-metrics-bin} trailer, or, with {@code
 * enableOobLoadReport}, the out-of-band stream {@code OpenRcaService/StreamCoreMetrics} every
 * {@code oobReportingPeriod} (a stream that ends is opened again after gRPC's backoff, 1 s and
 * up; not retried on a server that answers UNIMPLEMENTED, as gRFC A51
 * says). Config: gRPC's {@code weighted_round_robin} fields ({@link
 * dev.ballast.core.load.LoadOptions#WEIGHTED_ROUND_ROBIN}) beside lb-core's balancer options
 * ({@link dev.ballast.grpc.AlgorithmLoadBalancerProvider#OPTIONS}), in one JSON object; a bad
 * field is returned as an error naming it, never thrown. The feed is lb-grpc's, for every policy
 * that reads reports: a team's registered one gets the same through a {@code
 * PolicyLoadBalancerProvider}, as these are.
 */
public abstract class ReportingLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  ReportingLoadBalancerProvider(String policy, String policyName, BalancerConfig base) {
    super(policy, policyName, base);
  }
}

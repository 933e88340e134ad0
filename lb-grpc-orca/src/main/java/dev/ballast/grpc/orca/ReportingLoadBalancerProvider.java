package dev.ballast.grpc.orca;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.internal.HealthChecking;
import dev.ballast.grpc.internal.PolicyConfig;
import dev.ballast.grpc.orca.internal.OrcaLoadBalancer;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import java.util.Objects;

/**
 * A gRPC policy over an lb-core algorithm that reads load reports, fed by ORCA: per-call reports
 * from each call's {@code endpoint-load-metrics-bin} trailer, or, with {@code
 * enableOobLoadReport}, the out-of-band stream {@code OpenRcaService/StreamCoreMetrics} every
 * {@code oobReportingPeriod} (a stream that ends is opened again after gRPC's backoff, 1 s and
 * up; not retried on a server that answers UNIMPLEMENTED, as gRFC A51
 * says). Config: gRPC's {@code weighted_round_robin} fields ({@link
 * dev.ballast.core.load.LoadOptions#WEIGHTED_ROUND_ROBIN}) beside lb-core's balancer options
 * ({@link dev.ballast.grpc.AlgorithmLoadBalancerProvider#OPTIONS}), in one JSON object; a bad
 * field is returned as an error naming it, never thrown.
 */
public abstract class ReportingLoadBalancerProvider extends LoadBalancerProvider {

  private final Algorithm algorithm;
  private final String policyName;
  private final BalancerConfig base;

  ReportingLoadBalancerProvider(Algorithm algorithm, String policyName, BalancerConfig base) {
    this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
    this.policyName = Objects.requireNonNull(policyName, "policyName");
    this.base = Objects.requireNonNull(base, "base");
  }

  @Override
  public final boolean isAvailable() {
    return true;
  }

  /** Returns 5, the priority of gRPC's built-in policies. */
  @Override
  public final int getPriority() {
    return 5;
  }

  @Override
  public final String getPolicyName() {
    return policyName;
  }

  @Override
  public final LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    // behind gRPC's health checking when the service config asks for it, as every policy
    return HealthChecking.wrap(helper, h -> new OrcaLoadBalancer(h, algorithm, base, policyName));
  }

  @Override
  public final ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return PolicyConfig.parse(algorithm, policyName, rawConfig);
  }
}

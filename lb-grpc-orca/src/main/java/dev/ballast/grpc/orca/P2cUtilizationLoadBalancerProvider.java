package dev.ballast.grpc.orca;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code p2c_utilization}: lb-core's {@link dev.ballast.core.loadaware.P2cUtilization}
 * (of two subchannels drawn by ORCA-reported capacity, {@code qps / utilization}, the one with
 * fewer calls in flight per unit of it; peak-EWMA latency within 5%), fed by per-call reports,
 * or out-of-band ones with {@code enableOobLoadReport}. Config: as {@code
 * ballast_weighted_round_robin}'s, of which {@code weightExpirationPeriod} (how long a report
 * holds), {@code weightUpdatePeriod} (how often the draws follow the capacities), {@code
 * errorUtilizationPenalty} and the out-of-band fields are read, plus P2C peak EWMA's ({@code
 * decayTime}, {@code defaultRtt}, {@code failurePenalty}).
 */
public final class P2cUtilizationLoadBalancerProvider extends ReportingLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public P2cUtilizationLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public P2cUtilizationLoadBalancerProvider(BalancerConfig base) {
    super("p2c_utilization", "p2c_utilization", base);
  }
}

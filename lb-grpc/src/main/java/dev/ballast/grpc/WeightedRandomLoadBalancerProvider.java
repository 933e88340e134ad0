package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code weighted_random}: weighted random ({@link dev.ballast.core.roundrobin.WeightedRandom}). Config: none.
 */
public final class WeightedRandomLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public WeightedRandomLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public WeightedRandomLoadBalancerProvider(BalancerConfig base) {
    super("weighted_random", base);
  }
}

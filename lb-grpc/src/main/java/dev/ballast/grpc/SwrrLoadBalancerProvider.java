package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code swrr}: nginx's smooth weighted round robin ({@link dev.ballast.core.roundrobin.SmoothWeightedRoundRobin}), the O(N) baseline. Config: {@code maxFails} (default 1): a failed call lowers the subchannel's effective weight by weight/maxFails.
 */
public final class SwrrLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public SwrrLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public SwrrLoadBalancerProvider(BalancerConfig base) {
    super("swrr", base);
  }
}

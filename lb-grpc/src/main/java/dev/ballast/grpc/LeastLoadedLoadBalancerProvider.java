package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code least_loaded}: power of two choices over outstanding requests ({@link dev.ballast.core.loadaware.LeastLoaded}), fed by a stream tracer. Config: none.
 */
public final class LeastLoadedLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public LeastLoadedLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public LeastLoadedLoadBalancerProvider(BalancerConfig base) {
    super("least_loaded", base);
  }
}

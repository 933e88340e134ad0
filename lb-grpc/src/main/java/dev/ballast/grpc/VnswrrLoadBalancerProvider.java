package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code vnswrr}: Tengine's virtual-node smooth weighted round robin ({@link dev.ballast.core.roundrobin.Vnswrr}). Config: none.
 */
public final class VnswrrLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public VnswrrLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public VnswrrLoadBalancerProvider(BalancerConfig base) {
    super("vnswrr", base);
  }
}

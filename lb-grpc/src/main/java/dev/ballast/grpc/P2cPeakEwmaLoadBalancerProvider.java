package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code p2c_peak_ewma}: power of two choices over peak-EWMA latency times outstanding requests ({@link dev.ballast.core.loadaware.P2cPeakEwma}), fed by a stream tracer. Config: {@code decayTime} (default "10s"), {@code defaultRtt} (default "30ms").
 */
public final class P2cPeakEwmaLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public P2cPeakEwmaLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public P2cPeakEwmaLoadBalancerProvider(BalancerConfig base) {
    super("p2c_peak_ewma", base);
  }
}

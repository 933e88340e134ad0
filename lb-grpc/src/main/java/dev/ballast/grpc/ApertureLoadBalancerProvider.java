package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code aperture}: deterministic aperture ({@link dev.ballast.core.aperture.Aperture}),
 * each channel talking to a window of at least 12 subchannels picked for its coordinate, P2C
 * least loaded inside, fed by a stream tracer. Config: {@code clientIndex} and {@code
 * clientCount} (this client's place among its peers; default 0 of 1, all subchannels), {@code
 * slowStart}. Subchannels outside the window are still created and connected (gRPC's contract
 * for the address list); only the picks stay inside.
 */
public final class ApertureLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public ApertureLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public ApertureLoadBalancerProvider(BalancerConfig base) {
    super("aperture", base);
  }
}

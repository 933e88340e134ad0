package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code ring_hash}: gRPC's {@code ring_hash} ring ({@link
 * dev.ballast.core.hash.RingHash}); the same key reaches the same address as through gRPC-java's
 * {@code ring_hash_experimental} (grpc-xds), which keeps that name of its own. Config: see {@link
 * HashLoadBalancerProvider}.
 */
public final class RingHashLoadBalancerProvider extends HashLoadBalancerProvider {

  /** The policy name, {@code ring_hash}: the algorithm's name, as in every front end. */
  public static final String POLICY_NAME = "ring_hash";

  /** Creates the provider with lb-core's default settings. */
  public RingHashLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public RingHashLoadBalancerProvider(BalancerConfig base) {
    super(POLICY_NAME, POLICY_NAME, base);
  }
}

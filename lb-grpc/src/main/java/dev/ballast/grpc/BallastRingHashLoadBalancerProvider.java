package dev.ballast.grpc;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code ballast_ring_hash}: gRPC's {@code ring_hash} ring ({@link
 * dev.ballast.core.RingHash}), under a name of its own: the same key reaches the same address as
 * through gRPC-java's {@code ring_hash_experimental}. Config: see {@link
 * HashLoadBalancerProvider}.
 */
public final class BallastRingHashLoadBalancerProvider extends HashLoadBalancerProvider {

  /** The policy name, {@code ballast_ring_hash}. */
  public static final String POLICY_NAME = "ballast_ring_hash";

  /** Creates the provider with lb-core's default settings. */
  public BallastRingHashLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public BallastRingHashLoadBalancerProvider(BalancerConfig base) {
    super(Algorithm.RING_HASH, POLICY_NAME, base);
  }
}

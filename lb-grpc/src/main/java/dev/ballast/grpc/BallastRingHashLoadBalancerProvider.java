package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The former name of {@link RingHashLoadBalancerProvider}, {@code ballast_ring_hash}, kept
 * registered so that service configs naming it still work; prefer {@code ring_hash}.
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
    super("ring_hash", POLICY_NAME, base);
  }
}

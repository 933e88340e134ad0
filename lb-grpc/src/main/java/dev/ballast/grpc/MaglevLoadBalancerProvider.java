package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code maglev}: Maglev hashing ({@link dev.ballast.core.hash.Maglev}), a prime-sized
 * lookup table of 65,537 entries by default. Config: see {@link HashLoadBalancerProvider}.
 */
public final class MaglevLoadBalancerProvider extends HashLoadBalancerProvider {

  /** The policy name, {@code maglev}. */
  public static final String POLICY_NAME = "maglev";

  /** Creates the provider with lb-core's default settings. */
  public MaglevLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public MaglevLoadBalancerProvider(BalancerConfig base) {
    super(POLICY_NAME, POLICY_NAME, base);
  }
}

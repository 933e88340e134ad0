package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;

/**
 * The gRPC policy {@code ketama}: twemproxy's ketama continuum ({@link dev.ballast.core.hash.Ketama}):
 * the same key reaches the same server as through a twemproxy in front of it. Config: see {@link
 * HashLoadBalancerProvider}.
 */
public final class KetamaLoadBalancerProvider extends HashLoadBalancerProvider {

  /** The policy name, {@code ketama}. */
  public static final String POLICY_NAME = "ketama";

  /** Creates the provider with lb-core's default settings. */
  public KetamaLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public KetamaLoadBalancerProvider(BalancerConfig base) {
    super(POLICY_NAME, POLICY_NAME, base);
  }
}

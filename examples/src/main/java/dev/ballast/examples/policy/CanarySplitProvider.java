package dev.ballast.examples.policy;

import dev.ballast.grpc.PolicyLoadBalancerProvider;

/**
 * The gRPC policy {@code canary_split}: {@link CanarySplitPolicy} in a gRPC channel, registered in
 * {@code META-INF/services/io.grpc.LoadBalancerProvider}.
 */
public final class CanarySplitProvider extends PolicyLoadBalancerProvider {

  /** Creates the provider with lb-core's default settings. */
  public CanarySplitProvider() {
    super(CanarySplitPolicy.NAME);
  }
}

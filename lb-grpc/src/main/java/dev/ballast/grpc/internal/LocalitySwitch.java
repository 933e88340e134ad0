package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import io.grpc.LoadBalancer;

/**
 * The {@code locality} policy of one channel: {@link LocalityLoadBalancer} while its child is a
 * Ballast algorithm, one gRPC child per locality ({@link LocalityChildren}) while it is one of
 * gRPC's policies; when a new config changes the kind, the old one is shut down and the other
 * made (its subchannels connect anew).
 */
public final class LocalitySwitch extends SwitchingLoadBalancer {

  private final BalancerConfig base;

  /**
   * Creates the policy.
   *
   * @param base the lb-core settings (ticker, random source) the locality tables start from
   */
  public LocalitySwitch(Helper helper, BalancerConfig base) {
    super(helper);
    this.base = base;
  }

  /** Whether the child is one of gRPC's policies. */
  @Override
  boolean kind(ResolvedAddresses resolved) {
    return resolved.getLoadBalancingPolicyConfig() instanceof LocalityPolicyConfig c
        && c.grpcChild() != null;
  }

  @Override
  LoadBalancer make(boolean overGrpc) {
    return overGrpc ? new LocalityChildren(helper, base) : new LocalityLoadBalancer(helper, base);
  }
}

package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import io.grpc.LoadBalancer;
import io.grpc.Status;

/**
 * The {@code locality} policy of one channel: {@link LocalityLoadBalancer} while its child is a
 * Ballast algorithm, one gRPC child per locality ({@link LocalityChildren}) while it is one of
 * gRPC's policies; when a new config changes the kind, the old one is shut down and the other
 * made (its subchannels connect anew).
 */
public final class LocalitySwitch extends LoadBalancer {

  private final Helper helper;
  private final BalancerConfig base;
  private LoadBalancer current;
  private boolean overGrpc;

  /**
   * Creates the policy.
   *
   * @param base the lb-core settings (ticker, random source) the locality tables start from
   */
  public LocalitySwitch(Helper helper, BalancerConfig base) {
    this.helper = helper;
    this.base = base;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    boolean grpc = resolved.getLoadBalancingPolicyConfig() instanceof LocalityPolicyConfig c
        && c.grpcChild() != null;
    if (current == null || grpc != overGrpc) {
      if (current != null) {
        current.shutdown();
      }
      current = grpc ? new LocalityChildren(helper, base) : new LocalityLoadBalancer(helper, base);
      overGrpc = grpc;
    }
    return current.acceptResolvedAddresses(resolved);
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (current != null) {
      current.handleNameResolutionError(error);
    } else {
      helper.updateBalancingState(io.grpc.ConnectivityState.TRANSIENT_FAILURE,
          new FixedPicker(PickResult.withError(error)));
    }
  }

  @Override
  public void requestConnection() {
    if (current != null) {
      current.requestConnection();
    }
  }

  @Override
  public void shutdown() {
    if (current != null) {
      current.shutdown();
    }
  }
}

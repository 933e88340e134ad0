package dev.ballast.grpc.internal;

import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer;
import io.grpc.Status;

/**
 * A policy that runs one of two kinds of delegate, chosen on each address update: when an update
 * needs the other kind, the delegate is shut down and the other made (its subchannels connect
 * anew). Synchronization context only, as every gRPC load balancer.
 */
abstract class SwitchingLoadBalancer extends LoadBalancer {

  final Helper helper;
  private LoadBalancer current;
  private boolean kind;

  SwitchingLoadBalancer(Helper helper) {
    this.helper = helper;
  }

  /** Returns the kind of delegate these addresses need. */
  abstract boolean kind(ResolvedAddresses resolved);

  /** Makes a delegate of the kind. */
  abstract LoadBalancer make(boolean kind);

  @Override
  public final Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    boolean want = kind(resolved);
    if (current == null || want != kind) {
      if (current != null) {
        current.shutdown();
      }
      current = make(want);
      kind = want;
    }
    return current.acceptResolvedAddresses(resolved);
  }

  @Override
  public final void handleNameResolutionError(Status error) {
    if (current != null) {
      current.handleNameResolutionError(error);
    } else {
      helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
          new FixedPicker(PickResult.withError(error)));
    }
  }

  @Override
  public final void requestConnection() {
    if (current != null) {
      current.requestConnection();
    }
  }

  @Override
  public final void shutdown() {
    if (current != null) {
      current.shutdown();
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{kind=" + kind + ", " + current + "}";
  }
}

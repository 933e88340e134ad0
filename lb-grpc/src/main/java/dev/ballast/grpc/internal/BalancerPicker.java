package dev.ballast.grpc.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;

/**
 * The picker published while some subchannel is READY: asks the lb-core balancer (lock-free,
 * allocation-free) and hands out the backend's prebuilt {@link PickResult}.
 *
 * <p>Never returns a subchannel that is not READY: lb-core skips nodes that are not open (panic
 * picks are off), and a node added a moment ago, still open by default before its state is
 * bound, is caught by the backend's own ready flag. If nothing is ready (a race with a state
 * change whose new picker is on its way) the pick waits with no result.
 */
final class BalancerPicker extends SubchannelPicker {

  private static final int TRIES = 3;
  private static final PickResult WAIT = PickResult.withNoResult();

  private final Balancer<Backend> balancer;
  private final boolean feedback;

  BalancerPicker(Balancer<Backend> balancer, boolean feedback) {
    this.balancer = balancer;
    this.feedback = feedback;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    for (int i = 0; i < TRIES; i++) {
      Node<Backend> node;
      try {
        node = balancer.pick();
      } catch (NoAvailableEndpointException e) {
        return WAIT;
      }
      PickResult result = complete(node, feedback);
      if (result != null) {
        return result;
      }
    }
    return WAIT;
  }

  /**
   * Turns a counted pick into gRPC's result: with completion feedback the pending request is
   * ended by the stream tracer, else at once. Returns null (pick released) if the backend is not
   * READY.
   */
  static PickResult complete(Node<Backend> node, boolean feedback) {
    Backend b = node.value();
    if (!b.isReady()) {
      node.cancel();
      return null;
    }
    b.countPick();
    if (feedback) {
      b.pickedUnstarted();
      return b.tracedPick;
    }
    node.cancel();
    return b.plainPick;
  }

  @Override
  public String toString() {
    return "BalancerPicker{" + balancer + "}";
  }
}

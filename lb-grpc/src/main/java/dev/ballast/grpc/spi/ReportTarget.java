package dev.ballast.grpc.spi;

import dev.ballast.core.Node;
import io.grpc.LoadBalancer.Subchannel;
import java.util.function.BiConsumer;

/**
 * The load balancer of a policy that reads load reports, as a {@link ReportFeed} sees it: which
 * node balances each subchannel, how pick results are made, and the policy's own config. Every
 * method runs in the channel's synchronization context.
 */
public interface ReportTarget {

  /**
   * Sets how the pick results of the backends are made from the next address update on;
   * default {@link PickResults#PLAIN}.
   */
  void pickResults(PickResults results);

  /** Gives each subchannel the load balancer made and the node that balances it. */
  void forEachNode(BiConsumer<Subchannel, Node<?>> action);

  /**
   * Returns the policy's own decoded config (for instance {@link
   * dev.ballast.core.load.WeightedRoundRobinConfig}) in a load-balancing policy config the
   * channel resolved for this policy, or null if it holds none.
   */
  Object ownConfig(Object loadBalancingPolicyConfig);
}

package dev.ballast.core.testing;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.Distributor;
import dev.ballast.core.engine.DistributorBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import java.util.List;

/**
 * A team's policy with a bug: its distributor throws {@code IllegalStateException("a bug in the
 * team's distributor")} on every pick, for the front ends' tests of how a call fails then.
 */
public final class ThrowingPolicy implements BalancingPolicy<Values> {

  /** The policy's name. */
  public static final String NAME = "test_throwing";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public OptionSet<Values, ?> options() {
    return NO_OPTIONS;
  }

  @Override
  public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
    return new DistributorBalancer<>(NAME, common, new Distributor.Factory() {
      @Override
      public <U> Distributor<U> over(List<Node<U>> nodes, int[] weights, BalancerConfig c) {
        return () -> {
          throw new IllegalStateException("a bug in the team's distributor");
        };
      }
    });
  }
}

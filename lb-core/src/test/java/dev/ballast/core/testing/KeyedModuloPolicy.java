package dev.ballast.core.testing;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.KeyedDistributor;
import dev.ballast.core.engine.KeyedDistributorBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.Trait;
import java.util.List;
import java.util.Set;

/**
 * A key-picking policy written as a team would, on {@link KeyedDistributor}: a key goes to the
 * node at its hash modulo the node count (in update order, which the tests fix; a real policy
 * places keys by endpoint), the next node per further attempt. Its expected node is computable,
 * so the front ends' tests assert exact routing.
 */
public final class KeyedModuloPolicy implements BalancingPolicy<Values> {

  /** The policy's name. */
  public static final String NAME = "test_keyed_modulo";

  /** Makes the distributors: shared with tests that build the balancer themselves. */
  public static final KeyedDistributor.Factory MODULO = new KeyedDistributor.Factory() {
    @Override
    public <T> KeyedDistributor<T> over(List<Node<T>> nodes, int[] weights, BalancerConfig c) {
      return (keyHash, attempt) ->
          nodes.get((int) Long.remainderUnsigned(keyHash + attempt, nodes.size()));
    }
  };

  /** Returns the index, in update order, of the node a key goes to first among {@code n}. */
  public static int expected(String key, int n) {
    long hash = new KeyedDistributorBalancer<>(NAME, BalancerConfig.defaults(), MODULO).hash(key);
    return (int) Long.remainderUnsigned(hash, n);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Trait> traits() {
    return Set.of(Trait.PICKS_BY_KEY);
  }

  @Override
  public OptionSet<Values, ?> options() {
    return NO_OPTIONS;
  }

  @Override
  public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
    return new KeyedDistributorBalancer<>(NAME, common, MODULO);
  }
}

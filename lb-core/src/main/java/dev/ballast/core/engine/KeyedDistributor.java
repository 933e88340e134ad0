package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import java.util.List;

/**
 * A {@link Distributor} that also picks by a request's key, for a policy that declares {@link
 * dev.ballast.core.policy.Trait#PICKS_BY_KEY} (tenant pinning, a table of its own): {@link
 * KeyedDistributorBalancer} asks it for the candidate of a key's hash at attempt 0, then 1, ...
 * while the one returned is closed (a busy one keeps its keys, as in lb-core's key-picking
 * balancers), up to {@link BalancerConfig#maxEffort()}, then scans for an open node as every
 * balancer does. A pick without a key reads {@link #next()}. Both run on
 * every pick, concurrently: thread-safe, no allocation, no lock.
 *
 * @param <T> the thing being balanced
 */
public interface KeyedDistributor<T> extends Distributor<T> {

  /**
   * Returns the candidate for a key at an attempt, open or not: the same for the same hash and
   * attempt over one set of nodes, so that a key keeps its node.
   *
   * @param keyHash the key's hash ({@link KeyedDistributorBalancer#hash(CharSequence)})
   * @param attempt 0 for the first candidate, then 1, ... while the previous was closed
   */
  Node<T> next(long keyHash, int attempt);

  /** Makes a keyed distributor over each new set of nodes. */
  @FunctionalInterface
  interface Factory {

    /**
     * Creates the distributor of a non-empty set.
     *
     * @param nodes the nodes, unmodifiable, in update order
     * @param weights each node's weight at this update; a copy the distributor may keep
     * @param config the balancer's settings
     */
    <T> KeyedDistributor<T> over(List<Node<T>> nodes, int[] weights, BalancerConfig config);
  }
}

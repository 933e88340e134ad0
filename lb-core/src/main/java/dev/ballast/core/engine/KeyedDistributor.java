package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import java.util.List;

/**
 * The picking half of a balancer that picks by a request's key, for a policy that declares
 * {@link dev.ballast.core.policy.Trait#PICKS_BY_KEY} (tenant pinning, a table of its own): made
 * anew on every update by its {@link Factory}. {@link KeyedDistributorBalancer} asks it for a
 * key's candidate at attempt 0, then 1, ... while the one named is closed (a busy node keeps its
 * keys), up to {@link BalancerConfig#maxEffort()}; past that it walks the nodes from where the
 * hash points, as lb-core's key balancers do, so a key still lands on one node. A pick without a
 * key asks for a random hash. Runs on every pick, concurrently: thread-safe, no allocation, no
 * lock.
 *
 * <p>Place keys by what identifies an endpoint (its address or a label), not by its index in the
 * list: the update order is the source's, and a source that reorders its list would otherwise
 * move keys.
 *
 * @param <T> the thing being balanced
 */
@FunctionalInterface
public interface KeyedDistributor<T> {

  /**
   * Returns the candidate for a key at an attempt, open or not: the same for the same hash and
   * attempt over one set of nodes, and, for a further attempt, a node not named yet (a repeat
   * spends an attempt).
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

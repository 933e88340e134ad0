package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import java.util.List;

/**
 * The picking half of a balancer over one immutable set of nodes (Finagle's distributor): made
 * anew on every update by its {@link Factory}, asked for candidates by {@link
 * DistributorBalancer}, which returns the first open one within the config's effort and then
 * scans for one. {@link #next()} is called on every pick, concurrently: it must
 * be thread-safe, allocate nothing and take no lock.
 *
 * @param <T> the thing being balanced
 */
@FunctionalInterface
public interface Distributor<T> {

  /** Returns the next candidate, open or not. */
  Node<T> next();

  /** Makes a distributor over each new set of nodes. */
  @FunctionalInterface
  interface Factory {

    /**
     * Creates the distributor of a non-empty set.
     *
     * @param nodes the nodes, unmodifiable, in update order
     * @param weights each node's weight at this update (times its ramp during slow start); a
     *     copy the distributor may keep
     * @param config the balancer's settings (its random source for a random start)
     */
    <T> Distributor<T> over(List<Node<T>> nodes, int[] weights, BalancerConfig config);
  }
}

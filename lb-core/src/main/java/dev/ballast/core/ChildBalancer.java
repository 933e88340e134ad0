package dev.ballast.core;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What a composite balancer needs from the balancers it holds (label subsets, priorities and
 * localities): a composite owns one set of nodes, made by one child of an algorithm, and gives
 * each child a part of it, so that every child sees the same nodes and their load state. Every
 * balancer of lb-core's {@link Algorithm}s is one; {@link #of} gives a {@link Balancer} this
 * view.
 *
 * <p>A user of a balancer calls only {@link Balancer}'s methods; these are for composites and
 * for adapters that prepare something per endpoint before an update (a gRPC subchannel).
 *
 * @param <T> the thing being balanced
 */
public interface ChildBalancer<T> extends Balancer<T> {

  /**
   * Returns the balancer as a child balancer.
   *
   * @throws IllegalArgumentException if it is of another make that does not implement this
   *     interface (a composite could not make its nodes)
   */
  @SuppressWarnings("unchecked")
  static <T> ChildBalancer<T> of(Balancer<T> balancer) {
    Objects.requireNonNull(balancer, "balancer");
    if (balancer instanceof ChildBalancer) {
      return (ChildBalancer<T>) balancer;
    }
    throw new IllegalArgumentException("balancer: " + balancer.name() + " of "
        + balancer.getClass().getName() + " (expected: a ChildBalancer, as every lb-core"
        + " algorithm's balancer is)");
  }

  /** Returns a new child balancer of the algorithm ({@link Algorithm#create(BalancerConfig)}). */
  static <T> ChildBalancer<T> create(Algorithm algorithm, BalancerConfig config) {
    return of(algorithm.create(config));
  }

  /** Creates a node this balancer's algorithm can balance, without adding it. */
  Node<T> newNode(Endpoint endpoint, T value);

  /**
   * Creates a node as {@link #newNode(Endpoint, Object)} does, which runs {@code onHealthChange}
   * in the thread of {@link Node#setHealth} each time a verdict changes its health, for a
   * composite whose tables read health (priorities and localities); it should be quick (mark
   * the tables stale). Default: unsupported.
   *
   * @throws UnsupportedOperationException if the balancer cannot make such nodes
   */
  default Node<T> newNode(Endpoint endpoint, T value, Runnable onHealthChange) {
    throw new UnsupportedOperationException(name() + ": nodes that report health changes"
        + " (expected: an lb-core balancer, or one that delegates this method to one)");
  }

  /**
   * Makes this balancer hear the health changes of the nodes {@code maker} makes: a composite
   * whose children balance nodes another child made (a label subset's children share the nodes
   * the selector's first child made) calls it before {@link #setMembers}. Default: nothing, as a
   * balancer whose tables do not read health needs nothing.
   */
  default void hearHealthOf(ChildBalancer<T> maker) {}

  /**
   * Checks, changing nothing and making no node or value, that {@link #update} would accept this
   * set.
   *
   * @throws IllegalArgumentException naming the bad part, exactly when {@link #update} would
   *     reject the set
   */
  void validate(Collection<Endpoint> endpoints);

  /**
   * Balances exactly the given nodes, which must have been made by {@link #newNode} of a
   * balancer of the same algorithm.
   *
   * @throws IllegalArgumentException if a node was made for another algorithm, two nodes share
   *     an address, or the weights add up to more than {@link Integer#MAX_VALUE}
   */
  void setNodes(List<Node<T>> nodes);

  /**
   * Gives a node made by {@link #newNode} of this algorithm a new endpoint of the same address
   * (weight, labels), keeping its load state. A new weight resets the node's effective weight at
   * once (which {@code swrr} reads on every pick); the other weighted balancers already holding
   * the node go on using the weight they had until they are given their nodes again.
   *
   * @throws IllegalArgumentException if the address differs or the node was made for another
   *     algorithm
   */
  void renew(Node<T> node, Endpoint endpoint);

  /**
   * Returns whether the algorithm rejects some sets whose addresses are distinct and whose
   * weights' sum fits an {@code int} (VNSWRR's ring, Maglev's table), so that a composite must
   * call {@link #validateMembers} for every part it makes. Default: true.
   */
  default boolean limitsWeights() {
    return true;
  }

  /**
   * Throws what {@link #update} would for a set of these endpoints, given that their addresses
   * are distinct and their weights' sum fits an {@code int} (the composite checked the whole
   * set); {@code weights[i]} is {@code endpoints[i]}'s. Default: {@link #validate}.
   *
   * @throws IllegalArgumentException naming the bad part
   */
  default void validateMembers(Endpoint[] endpoints, int[] weights) {
    validate(Arrays.asList(endpoints));
  }

  /**
   * Balances exactly these nodes with these weights, which the composite made with {@link
   * #newNode} of this algorithm and checked as a whole: distinct addresses, a weight sum that
   * fits an {@code int}, accepted by {@link #validateMembers}. lb-core's balancers keep the
   * arrays as they are and check only the nodes' algorithm, so a part costs no address hashing;
   * the caller must not change the arrays afterwards. Default: {@link #setNodes}.
   *
   * @throws IllegalArgumentException if the nodes were made for another algorithm
   */
  default void setMembers(Node<T>[] nodes, int[] weights) {
    setNodes(Arrays.asList(nodes));
  }
}

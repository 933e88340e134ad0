package dev.ballast.core.engine;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.util.Objects;

/**
 * A node as the balancers' engine keeps it: every built-in balancer's node class extends it
 * (Finagle: each balancer defines its node), and a balancer written on the engine extends it
 * for its own per-node state, overriding {@link Node}'s hooks.
 *
 * @param <T> the thing being balanced
 */
public class EngineNode<T> extends Node<T> {

  // When the node joined its balancer, for slow start; written before the node is published.
  long joined = SlowStart.NOT_RAMPING;
  // the metric that made it: a balancer takes only nodes made by its own class of metric
  final LoadMetric madeBy;

  /**
   * Makes a node of an endpoint.
   *
   * @param madeBy the load metric making it ({@link LoadMetric#newNode})
   * @param healthListener told when a verdict changes the node's health; may be null
   */
  protected EngineNode(Endpoint endpoint, T value, LoadMetric madeBy, Runnable healthListener) {
    super(endpoint, value, healthListener);
    this.madeBy = Objects.requireNonNull(madeBy, "madeBy");
  }

  final void renew(Endpoint e) {
    updateEndpoint(e);
  }
}

package dev.ballast.core.engine;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;

/**
 * What a balancer's nodes record, as Finagle's load metrics: the metric makes the balancer's
 * nodes (each balancer defines its node, whose hooks feed the metric's state) and holds what
 * they share (decay time, clock, totals). Balancers that need nothing use {@link #NONE}: plain
 * nodes, which pay nothing.
 */
public abstract class LoadMetric {

  /** Plain nodes ({@link EngineNode}), which record nothing more than every node does. */
  public static final LoadMetric NONE = new LoadMetric() {};

  /**
   * Makes a node whose state is this metric's (Finagle: each balancer defines its node); by
   * default a plain {@link EngineNode}.
   *
   * @param healthListener told when a verdict changes the node's health; may be null
   */
  protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
    return new EngineNode<>(endpoint, value, healthListener);
  }

  /**
   * The class of the nodes {@link #newNode} makes (by default {@link EngineNode}): a balancer
   * refuses nodes of another.
   */
  protected Class<?> nodeClass() {
    return EngineNode.class;
  }
}

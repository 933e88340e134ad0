package dev.ballast.core.engine;

import dev.ballast.core.Endpoint;

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
   * default a plain {@link EngineNode}. The node names this metric as its maker: a balancer
   * refuses a node made by another class of metric.
   *
   * @param <T> the thing being balanced
   * @param healthListener told when a verdict changes the node's health; may be null
   * @return a new node, not yet in any balancer
   */
  protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
    return new EngineNode<>(endpoint, value, this, healthListener);
  }
}

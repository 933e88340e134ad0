package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;

/** The empty set: every pick fails. */
final class EmptySnapshot<T> extends Snapshot<T> {
  @SuppressWarnings("unchecked")
  EmptySnapshot(String name) {
    super(name, new Node[0], BalancerConfig.defaults());
  }

  @Override
  public Node<T> pick() {
    throw new NoAvailableEndpointException(name, 0);
  }

  @Override
  public Node<T> next() {
    throw new NoAvailableEndpointException(name, 0);
  }
}

package dev.ballast.core.engine;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.List;

/** For tests of the algorithms' packages: what the engine keeps to itself and its subclasses. */
public final class EngineTesting {

  private EngineTesting() {}

  /** The balancer's current snapshot (an {@link AbstractBalancer}). */
  public static <T> Snapshot<T> current(Balancer<T> balancer) {
    return ((AbstractBalancer<T>) balancer).current();
  }

  /** The snapshot's nodes, in its order. */
  public static <T> List<Node<T>> nodes(Snapshot<T> snapshot) {
    return List.of(snapshot.nodes);
  }
}

package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import java.util.Arrays;
import java.util.Collections;
import java.util.Objects;

/**
 * The balancer of a policy written as a {@link Distributor}: the engine every lb-core algorithm
 * shares (nodes kept by address across updates with their load state, an immutable snapshot
 * swapped on update, slow start, and a pick that asks the distributor for up to {@link
 * BalancerConfig#maxEffort()} candidates, then scans for an open node and panics or throws as
 * configured) around a user's way of choosing. Nodes record nothing on completion beyond their
 * pending count.
 *
 * @param <T> the thing being balanced
 */
public final class DistributorBalancer<T> extends AbstractBalancer<T> {

  private final Distributor.Factory factory;

  /**
   * Creates an empty balancer.
   *
   * @param name the policy's name, for messages and {@link #name()}
   * @param config the settings every balancer reads
   * @param factory makes a distributor over each new set of nodes
   */
  public DistributorBalancer(String name, BalancerConfig config, Distributor.Factory factory) {
    super(Objects.requireNonNull(name, "name"), config, LoadMetric.NONE);
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    Distributor<T> d = factory.over(Collections.unmodifiableList(Arrays.asList(nodes)),
        weights.clone(), config);
    Objects.requireNonNull(d, () -> "policy " + name() + ": its Distributor.Factory returned null"
        + " (expected: a distributor over the nodes)");
    return new Snapshot<>(name(), nodes, config) {
      @Override
      public Node<T> next() {
        return d.next();
      }
    };
  }
}

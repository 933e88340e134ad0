package dev.ballast.core.hash;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.EngineNode;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.XxHash64;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the key-hashing balancers share: the pick by hash over a {@link HashSnapshot}, and a
 * {@link InFlight} total of pending requests when loads are bounded.
 */
abstract class AbstractHashBalancer<T> extends AbstractBalancer<T> implements HashBalancer<T> {

  final HashConfig hashConfig;

  AbstractHashBalancer(String name, BalancerConfig config, HashConfig hashConfig) {
    super(name, config, Objects.requireNonNull(hashConfig, "hashConfig").loadBound() > 0
        ? new InFlight() : LoadMetric.NONE);
    this.hashConfig = hashConfig;
  }

  @Override
  public final Node<T> pick(long hash) {
    Node<T> node = pickUncounted(hash);
    node.start();
    return node;
  }

  @Override
  public final Node<T> pickUncounted(long hash) {
    Snapshot<T> s = current();
    return s instanceof HashSnapshot
        ? ((HashSnapshot<T>) s).pick(hash, Availability.CLOSED)
        : s.pick(); // the empty set: throws
  }

  @Override
  protected final Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    throw new AssertionError("hash balancers build from the endpoints");
  }

  /** The total of pending requests that bounded loads read, or null when loads are unbounded. */
  final LongAdder inFlight() {
    return metric instanceof InFlight ? ((InFlight) metric).total : null;
  }

  /** xxHash64 (seed 0) of the key's UTF-8 bytes: ring hash's and Maglev's key hash. */
  static long xxHash64(CharSequence key) {
    return XxHash64.ofKey(key);
  }

  /** The name of an endpoint for ketama and Maglev: its name label, if configured and set. */
  final String labelName(Endpoint e) {
    String label = hashConfig.nameLabel();
    return label == null ? null : e.label(label);
  }

  /**
   * The pending requests of all the nodes a balancer made, summed as they change, for bounded
   * loads (Envoy likewise reads a cluster-wide active-request gauge): reading the total is a
   * sum over a few cells, not over the nodes.
   */
  static final class InFlight extends LoadMetric {
    final LongAdder total = new LongAdder();

    @Override
    protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
      return new CountedNode<>(endpoint, value, this, healthListener);
    }
  }

  /** A node of a balancer with bounded loads: its pending requests count in the total too. */
  static final class CountedNode<T> extends EngineNode<T> {
    private final LongAdder total;

    CountedNode(Endpoint endpoint, T value, InFlight metric, Runnable healthListener) {
      super(endpoint, value, metric, healthListener);
      this.total = metric.total;
    }

    @Override
    protected void onAcquire() {
      total.increment();
    }

    @Override
    protected void onRelease() {
      total.decrement();
    }
  }
}

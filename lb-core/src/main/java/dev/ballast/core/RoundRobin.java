package dev.ballast.core;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plain round robin: each pick takes the next node in order; weights are ignored (use {@link
 * Vnswrr} for weighted round robin). Each snapshot starts at a random position, so that many
 * clients updated at once do not all send their first request to the same node. With {@link
 * BalancerConfig#slowStartWindow() slow start}, endpoints in their ramp make it weighted round
 * robin over the ramp's levels (VNSWRR's ring) until every ramp ends.
 *
 * @param <T> the thing being balanced
 */
public final class RoundRobin<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code round_robin}. */
  public static final String NAME = "round_robin";

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public RoundRobin() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's random source, effort and panic settings. */
  public RoundRobin(BalancerConfig config) {
    super(NAME, config, LoadMetric.NONE);
  }

  @Override
  void checkRamp(int[] ramped, int[] levels) {
    RampRing.check(levels, levels); // the ring is over the levels alone
  }

  @Override
  Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return levels == null
        ? new RoundRobinSnapshot<>(NAME, nodes, config)
        : RampRing.snapshot(NAME, nodes, levels, levels, config);
  }

  /** Cycles through the nodes from a random start; shared with equal-weight VNSWRR. */
  static final class RoundRobinSnapshot<T> extends Snapshot<T> {
    private final AtomicInteger position;

    RoundRobinSnapshot(String name, Node<T>[] nodes, BalancerConfig config) {
      super(name, nodes, config);
      this.position = new AtomicInteger(config.random().nextInt(nodes.length));
    }

    @Override
    Node<T> next() {
      // Masked to stay positive: after 2^31 picks the walk restarts at node 0, once.
      return nodes[(position.getAndIncrement() & Integer.MAX_VALUE) % nodes.length];
    }
  }
}

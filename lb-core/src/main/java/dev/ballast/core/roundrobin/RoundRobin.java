package dev.ballast.core.roundrobin;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plain round robin: each pick takes the next node in order; weights are ignored (use {@link
 * Vnswrr} for weighted round robin). Each snapshot starts at a random position, so that many
 * clients updated at once do not all send their first request to the same node. With {@link
 * BalancerConfig#slowStartWindow() slow start}, endpoints in their ramp make it weighted round
 * robin over the ramp's levels (VNSWRR's ring) until every ramp ends.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.RoundRobin} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class RoundRobin<T> extends AbstractBalancer<T> {

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
  protected void checkRamp(int[] ramped, int[] levels) {
    RampRing.check(levels, levels); // the ring is over the levels alone
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return levels == null
        ? new RoundRobinSnapshot<>(NAME, nodes, config)
        : RampRing.snapshot(NAME, nodes, levels, levels, config);
  }

  /**
   * Returns a snapshot cycling through the nodes from a random start: for a balancer on the
   * engine whose nodes have equal weights ({@code weighted_round_robin} before any report).
   *
   * @throws IllegalArgumentException if there is no node
   */
  public static <T> Snapshot<T> snapshot(String name, Node<T>[] nodes, BalancerConfig config) {
    if (nodes.length == 0) {
      throw new IllegalArgumentException("nodes: none (expected: at least one)");
    }
    return new RoundRobinSnapshot<>(name, nodes, config);
  }

  /** Cycles through the nodes from a random start; shared with equal-weight VNSWRR. */
  static final class RoundRobinSnapshot<T> extends Snapshot<T> {
    private final AtomicInteger position;

    RoundRobinSnapshot(String name, Node<T>[] nodes, BalancerConfig config) {
      super(name, nodes, config);
      this.position = new AtomicInteger(config.random().nextInt(nodes.length));
    }

    @Override
    public Node<T> next() {
      // Masked to stay positive: after 2^31 picks the walk restarts at node 0, once.
      return nodes[(position.getAndIncrement() & Integer.MAX_VALUE) % nodes.length];
    }
  }
}

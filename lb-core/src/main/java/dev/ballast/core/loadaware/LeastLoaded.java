package dev.ballast.core.loadaware;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;

/**
 * P2C least-loaded, Finagle's default balancer: of two random nodes, take the one with fewer
 * pending requests per unit of weight ({@code pending / weight}, Finagle's weighted P2C).
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.LeastLoaded} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class LeastLoaded<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code least_loaded}. */
  public static final String NAME = "least_loaded";

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public LeastLoaded() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's random source, effort and panic settings. */
  public LeastLoaded(BalancerConfig config) {
    super(NAME, config, LoadMetric.NONE);
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return new P2cSnapshot<>(NAME, nodes, weights, levels, config) {
      @Override
      protected boolean cheaper(int b, int a) {
        // pending_b / w_b < pending_a / w_a, without dividing
        return (long) this.nodes[b].pending() * this.weights[a]
            < (long) this.nodes[a].pending() * this.weights[b];
      }
    };
  }
}

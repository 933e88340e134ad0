package dev.ballast.core.roundrobin;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.AliasTable;

/**
 * Weighted random choice in O(1) per pick with Vose's alias method (M. D. Vose, "A linear
 * algorithm for generating random numbers with a given distribution", IEEE TSE 1991): each node
 * gets a column of height 1 split between itself and one alias; a pick draws a column and a
 * coin ({@code AliasTable}). The table is built in O(N) at update.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.WeightedRandom} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class WeightedRandom<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code weighted_random}. */
  public static final String NAME = "weighted_random";

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public WeightedRandom() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's random source, effort and panic settings. */
  public WeightedRandom(BalancerConfig config) {
    super(NAME, config, LoadMetric.NONE);
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return new AliasSnapshot<>(nodes, weights, config);
  }

  private static final class AliasSnapshot<T> extends Snapshot<T> {
    private final AliasTable table;

    AliasSnapshot(Node<T>[] nodes, int[] weights, BalancerConfig config) {
      super(NAME, nodes, config);
      this.table = new AliasTable(weights);
    }

    @Override
    public Node<T> next() {
      return nodes[table.draw(random.nextLong() >>> 32)];
    }
  }
}

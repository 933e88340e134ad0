package dev.ballast.core;

import dev.ballast.core.load.WeightedRoundRobinConfig;

/**
 * Moved to {@link dev.ballast.core.loadaware.WeightedRoundRobin}, with the other algorithms
 * of its family, so that lb-core's root package keeps the user API; this alias lasts one
 * version. A balancer made through this name is one of the new type too.
 *
 * @param <T> the thing being balanced
 * @deprecated use {@link dev.ballast.core.loadaware.WeightedRoundRobin}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class WeightedRoundRobin<T> extends dev.ballast.core.loadaware.WeightedRoundRobin<T> {

  /** As the moved class's constructor with these arguments. */
  public WeightedRoundRobin() {
    super();
  }

  /** As the moved class's constructor with these arguments. */
  public WeightedRoundRobin(BalancerConfig config) {
    super(config);
  }

  /** As the moved class's constructor with these arguments. */
  public WeightedRoundRobin(BalancerConfig config, WeightedRoundRobinConfig weights) {
    super(config, weights);
  }
}

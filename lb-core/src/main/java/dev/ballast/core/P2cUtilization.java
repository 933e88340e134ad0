package dev.ballast.core;

import dev.ballast.core.load.WeightedRoundRobinConfig;

/**
 * Moved to {@link dev.ballast.core.loadaware.P2cUtilization}, with the other algorithms
 * of its family, so that lb-core's root package keeps the user API; this alias lasts one
 * version. A balancer made through this name is one of the new type too.
 *
 * @param <T> the thing being balanced
 * @deprecated use {@link dev.ballast.core.loadaware.P2cUtilization}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class P2cUtilization<T> extends dev.ballast.core.loadaware.P2cUtilization<T> {

  /** As the moved class's constructor with these arguments. */
  public P2cUtilization() {
    super();
  }

  /** As the moved class's constructor with these arguments. */
  public P2cUtilization(BalancerConfig config) {
    super(config);
  }

  /** As the moved class's constructor with these arguments. */
  public P2cUtilization(BalancerConfig config, WeightedRoundRobinConfig reports) {
    super(config, reports);
  }
}

package dev.ballast.core;

/**
 * Moved to {@link dev.ballast.core.roundrobin.SmoothWeightedRoundRobin}, with the other algorithms
 * of its family, so that lb-core's root package keeps the user API; this alias lasts one
 * version. A balancer made through this name is one of the new type too.
 *
 * @param <T> the thing being balanced
 * @deprecated use {@link dev.ballast.core.roundrobin.SmoothWeightedRoundRobin}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class SmoothWeightedRoundRobin<T>
    extends dev.ballast.core.roundrobin.SmoothWeightedRoundRobin<T> {

  /** As the moved class's constructor with these arguments. */
  public SmoothWeightedRoundRobin() {
    super();
  }

  /** As the moved class's constructor with these arguments. */
  public SmoothWeightedRoundRobin(BalancerConfig config) {
    super(config);
  }
}

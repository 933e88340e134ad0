package dev.ballast.core;

/**
 * Moved to {@link dev.ballast.core.roundrobin.Vnswrr}, with the other algorithms
 * of its family, so that lb-core's root package keeps the user API; this alias lasts one
 * version. A balancer made through this name is one of the new type too.
 *
 * @param <T> the thing being balanced
 * @deprecated use {@link dev.ballast.core.roundrobin.Vnswrr}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class Vnswrr<T> extends dev.ballast.core.roundrobin.Vnswrr<T> {

  /** As the moved class's constructor with these arguments. */
  public Vnswrr() {
    super();
  }

  /** As the moved class's constructor with these arguments. */
  public Vnswrr(BalancerConfig config) {
    super(config);
  }
}

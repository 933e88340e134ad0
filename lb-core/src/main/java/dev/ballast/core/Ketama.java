package dev.ballast.core;

/**
 * Moved to {@link dev.ballast.core.hash.Ketama}, with the other algorithms
 * of its family, so that lb-core's root package keeps the user API; this alias lasts one
 * version. A balancer made through this name is one of the new type too.
 *
 * @param <T> the thing being balanced
 * @deprecated use {@link dev.ballast.core.hash.Ketama}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class Ketama<T> extends dev.ballast.core.hash.Ketama<T> {

  /** As the moved class's constructor with these arguments. */
  public Ketama() {
    super();
  }

  /** As the moved class's constructor with these arguments. */
  public Ketama(BalancerConfig config, HashConfig hashConfig) {
    super(config, hashConfig);
  }
}

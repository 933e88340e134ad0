package dev.ballast.core.composite;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;

/**
 * Moved to {@link dev.ballast.core.ChildBalancer}, so that lb-core's root package no longer
 * depends on this one (and this one on it); this alias lasts one version. A balancer written
 * against this name is one of the new type too, and compiles and runs unchanged.
 *
 * @param <T> the thing being balanced
 * @deprecated use {@link dev.ballast.core.ChildBalancer}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public interface ChildBalancer<T> extends dev.ballast.core.ChildBalancer<T> {

  /** See {@link dev.ballast.core.ChildBalancer#of(Balancer)}. */
  static <T> dev.ballast.core.ChildBalancer<T> of(Balancer<T> balancer) {
    return dev.ballast.core.ChildBalancer.of(balancer);
  }

  /** See {@link dev.ballast.core.ChildBalancer#create(Algorithm, BalancerConfig)}. */
  static <T> dev.ballast.core.ChildBalancer<T> create(Algorithm algorithm, BalancerConfig config) {
    return dev.ballast.core.ChildBalancer.create(algorithm, config);
  }
}

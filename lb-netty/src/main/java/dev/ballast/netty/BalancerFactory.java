package dev.ballast.netty;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;

/**
 * Makes the balancer a client picks with; any lb-core {@link Balancer} fits, e.g. {@code
 * Algorithm.P2C_PEAK_EWMA::create} or a composite such as a label-subset balancer.
 */
@FunctionalInterface
public interface BalancerFactory {

  /** Creates an empty balancer with these settings. */
  <T> Balancer<T> create(BalancerConfig config);
}

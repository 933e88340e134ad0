package dev.ballast.netty;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.locality.LocalityConfig;
import java.util.Objects;

/**
 * Makes the balancer a client picks with; any lb-core {@link Balancer} fits, e.g. {@code
 * Algorithm.P2C_PEAK_EWMA::create} or a composite such as a label-subset balancer.
 */
@FunctionalInterface
public interface BalancerFactory {

  /** Creates an empty balancer with these settings. */
  <T> Balancer<T> create(BalancerConfig config);

  /**
   * Returns a factory of {@link LocalityBalancer}s (priorities, localities and zone-aware
   * routing from the endpoints' {@code priority} and {@code zone} labels), whose child balancer
   * in each locality this factory makes. With label subsets, each subset gets one over its
   * endpoints (subsets over zones); a call's key reaches the locality's child when it picks by
   * key, so that a key keeps one node within its zone; a node's verdict reaches every subset
   * holding it.
   */
  default BalancerFactory byLocality(LocalityConfig locality) {
    Objects.requireNonNull(locality, "locality");
    BalancerFactory children = this;
    return new BalancerFactory() {
      @Override
      public <T> Balancer<T> create(BalancerConfig config) {
        return LocalityBalancer.<T>builder().config(config).locality(locality)
            .balancerFactory(() -> children.create(config)).build();
      }
    };
  }
}

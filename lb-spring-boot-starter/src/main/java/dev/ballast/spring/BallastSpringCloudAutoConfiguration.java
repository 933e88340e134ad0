package dev.ballast.spring;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.spring.cloud.BallastServiceInstanceLoadBalancer;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.spring.internal.PropertyKeys;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.context.annotation.Bean;

/**
 * With Spring Cloud LoadBalancer on the class path and {@code ballast.spring-cloud.balancer} set
 * (e.g. {@code p2c-peak-ewma}), every service it balances gets a {@link
 * BallastServiceInstanceLoadBalancer} instead of Spring Cloud's round robin: {@code @LoadBalanced}
 * clients and the application's discovery stay as they are. The algorithm's settings come from
 * {@code ballast.defaults} ({@code decay-time}, {@code default-rtt}, {@code max-effort}...). A
 * service with a {@code @LoadBalancerClient} configuration of its own keeps what that defines.
 */
@AutoConfiguration(after = BallastAutoConfiguration.class,
    beforeName = "org.springframework.cloud.loadbalancer.config.LoadBalancerAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.cloud.loadbalancer.core"
    + ".ReactorServiceInstanceLoadBalancer")
@ConditionalOnProperty("ballast.spring-cloud.balancer")
@LoadBalancerClients(defaultConfiguration = SpringCloudServiceConfiguration.class)
public class BallastSpringCloudAutoConfiguration {

  /** Creates the auto-configuration. */
  public BallastSpringCloudAutoConfiguration() {}

  /**
   * The checked algorithm and settings, at start-up (Spring Cloud makes each service's balancer
   * on its first request).
   *
   * @throws InvalidBallastPropertyException naming a bad {@code ballast.spring-cloud.balancer}
   */
  /**
   * The algorithm and its options ({@code ballast.defaults}, decoded by the model's codec).
   *
   * @throws InvalidBallastPropertyException for an unknown balancer or one that picks by key
   */
  @Bean
  Balancing ballastSpringCloudBalancing(Environment environment) {
    Binder binder = Binder.get(environment);
    String balancer = binder.bind("ballast.spring-cloud.balancer", String.class).orElse("");
    Algorithm algorithm;
    try {
      algorithm = CoreOptions.ALGORITHM.parse(balancer);
    } catch (IllegalArgumentException e) {
      throw PropertyKeys.invalid("ballast.spring-cloud",
          new OptionException("balancer", e.getMessage(), e), balancer);
    }
    if (ConfiguredPolicy.named(algorithm.id()).traits().contains(Trait.PICKS_BY_KEY)) {
      throw new InvalidBallastPropertyException("ballast.spring-cloud.balancer", balancer,
          "picks by key, and Spring Cloud requests give none",
          "one of vnswrr, swrr, round-robin, weighted-random, least-loaded, p2c-peak-ewma");
    }
    Map<String, Object> defaults = new PropertyKeys(List.copyOf(CoreOptions.BALANCER.options()))
        .read(binder, "ballast.defaults");
    try {
      return new Balancing(algorithm, CoreOptions.BALANCER.decode(defaults));
    } catch (OptionException e) {
      throw PropertyKeys.invalid("ballast.defaults", e, defaults.get(e.option()));
    }
  }

  record Balancing(Algorithm algorithm, BalancerConfig config) {}
}

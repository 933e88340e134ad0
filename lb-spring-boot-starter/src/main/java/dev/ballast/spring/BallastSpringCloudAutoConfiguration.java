package dev.ballast.spring;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.spring.cloud.BallastServiceInstanceLoadBalancer;
import dev.ballast.spring.internal.PropertyChecks;
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
  @Bean
  Balancing ballastSpringCloudBalancing(BallastProperties properties) {
    PropertyChecks p = new PropertyChecks("ballast.spring-cloud");
    Algorithm algorithm = ClientSettings.algorithm(p, "balancer",
        properties.getSpringCloud().getBalancer());
    if (algorithm.picksByKey()) {
      throw p.invalid("balancer", properties.getSpringCloud().getBalancer(),
          "picks by key, and Spring Cloud requests give none",
          "one of vnswrr, swrr, round-robin, weighted-random, least-loaded, p2c-peak-ewma");
    }
    BalancerConfig config = ClientSettings.from("defaults", "ballast.defaults",
        properties.getDefaults(), false).balancerConfig();
    return new Balancing(algorithm, config);
  }

  /** The algorithm and settings of every service's balancer. */
  record Balancing(Algorithm algorithm, BalancerConfig config) {}
}

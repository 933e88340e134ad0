package dev.ballast.spring;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.spring.cloud.BallastServiceInstanceLoadBalancer;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.spring.internal.PropertyKeys;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
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
 * clients and the application's discovery stay as they are. The balancer is one of lb-core's
 * algorithms or a registered policy (its own options under {@code ballast.spring-cloud.policy.});
 * the settings every balancer reads come from {@code ballast.defaults} ({@code decay-time},
 * {@code default-rtt}, {@code max-effort}...). A
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
   * The balancing policy with its options, checked at start-up (Spring Cloud makes each
   * service's balancer on its first request): {@code ballast.spring-cloud.balancer} names one
   * of lb-core's algorithms or a registered policy, whose own options are {@code
   * ballast.spring-cloud.policy.*}; the settings every balancer reads come from {@code
   * ballast.defaults}, decoded by the model's codec.
   *
   * @throws InvalidBallastPropertyException for an unknown balancer, one that picks by key, or a
   *     bad option
   */
  @Bean
  Balancing ballastSpringCloudBalancing(Environment environment) {
    Binder binder = BallastSettings.binder(environment);
    String balancer = binder.bind("ballast.spring-cloud.balancer", String.class).orElse("");
    Map<String, Object> own = binder.bind("ballast.spring-cloud.policy",
        Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
    ConfiguredPolicy<?> policy;
    try {
      BalancingPolicy<?> p = ConfiguredPolicy.named(balancer);
      if (p.traits().contains(Trait.PICKS_BY_KEY)) {
        throw new InvalidBallastPropertyException("ballast.spring-cloud.balancer", balancer,
            "picks by key, and Spring Cloud requests give none",
            "a policy that picks without a key, e.g. p2c-peak-ewma");
      }
      policy = ConfiguredPolicy.forClient(p, own, HashConfig.defaults(),
          WeightedRoundRobinConfig.defaults());
    } catch (OptionException e) {
      throw PropertyKeys.invalid("ballast.spring-cloud", e,
          PropertyKeys.given(Map.of("balancer", balancer, "policy", own), e.option()));
    }
    Map<String, Object> defaults = new PropertyKeys(List.copyOf(CoreOptions.BALANCER.options()))
        .read(binder, "ballast.defaults");
    try {
      return new Balancing(policy, CoreOptions.BALANCER.decode(defaults));
    } catch (OptionException e) {
      throw PropertyKeys.invalid("ballast.defaults", e, defaults.get(e.option()));
    }
  }

  record Balancing(ConfiguredPolicy<?> policy, BalancerConfig config) {}
}

package dev.ballast.spring;

import dev.ballast.spring.cloud.BallastServiceInstanceLoadBalancer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Spring Cloud LoadBalancer's per-service context: the service's Ballast balancer (Spring Cloud's
 * round robin then steps aside). Registered by {@link BallastSpringCloudAutoConfiguration}; a top
 * level class so that the application context itself does not take it as a nested configuration.
 */
@Configuration(proxyBeanMethods = false)
class SpringCloudServiceConfiguration {

  // Spring Cloud registers a service's own configuration before the default ones: a balancer
  // defined there wins.
  @Bean
  @ConditionalOnMissingBean(ReactorLoadBalancer.class)
  BallastServiceInstanceLoadBalancer ballastServiceInstanceLoadBalancer(Environment environment,
      LoadBalancerClientFactory factory, BallastSpringCloudAutoConfiguration.Balancing balancing) {
    String service = LoadBalancerClientFactory.getName(environment);
    return new BallastServiceInstanceLoadBalancer(service,
        factory.getLazyProvider(service, ServiceInstanceListSupplier.class),
        balancing.policy(), balancing.config());
  }
}

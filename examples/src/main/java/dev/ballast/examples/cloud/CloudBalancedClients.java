package dev.ballast.examples.cloud;

import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

/**
 * Spring Cloud LoadBalancer's {@code @LoadBalanced} clients, balanced by Ballast once
 * {@code ballast.spring-cloud.balancer} is set; {@code http://orders/...} names a service id.
 */
@Configuration(proxyBeanMethods = false)
public class CloudBalancedClients {

  @Bean
  @LoadBalanced
  RestClient.Builder restClientBuilder() {
    return RestClient.builder();
  }
  // restClientBuilder.build().get().uri("http://orders/items").retrieve().body(String.class)
}

package dev.ballast.examples;

import dev.ballast.examples.cloud.CloudBalancedClients;
import dev.ballast.examples.web.CatalogService;
import dev.ballast.spring.BallastClientCustomizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.client.RestClient;

/**
 * The README's Spring examples with P2C peak EWMA over three identical HTTP servers on
 * 127.0.0.1: Spring's RestClient through a Ballast client, and a {@code @LoadBalanced}
 * RestClient through Spring Cloud LoadBalancer; every server has its share from the first call.
 * The servers share one I/O thread, and so does the Ballast client ({@link IdenticalServers}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpringFirstSecondsTest {

  private final IdenticalServers servers = new IdenticalServers();

  @AfterEach
  void stop() {
    servers.close();
  }

  @Test
  void restClientThroughABallastClient() throws Exception {
    // arguments, which win over the example's application.yaml
    List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off",
        "--ballast.clients.orders.protocol=http"));
    for (int i = 0; i < 3; i++) {
      args.add("--ballast.clients.orders.endpoints[" + i + "]=" + servers.http1().address());
    }
    BallastClientCustomizer oneThread = (settings, builder) ->
        builder.eventLoopGroup(servers.clientThread());
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(WebApp.class)
        .initializers(c -> c.getBeanFactory().registerSingleton("oneThread", oneThread))
        .web(WebApplicationType.NONE).run(args.toArray(String[]::new))) {
      CatalogService catalog = ctx.getBean(CatalogService.class);
      FairShare.assertFairFromTheFirstCall(() -> catalog.item(7), servers.answered());
    }
  }

  @Test
  void loadBalancedRestClientThroughSpringCloudLoadBalancer() throws Exception {
    List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off",
        "--ballast.spring-cloud.balancer=p2c-peak-ewma"));
    for (int i = 0; i < 3; i++) {
      args.add("--spring.cloud.discovery.client.simple.instances.orders[" + i + "].uri="
          + "http://" + servers.http1().address());
    }
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(CloudApp.class)
        .web(WebApplicationType.NONE).run(args.toArray(String[]::new))) {
      RestClient client = ctx.getBean(RestClient.Builder.class).build();
      FairShare.assertFairFromTheFirstCall(
          () -> client.get().uri("http://orders/items").retrieve().body(String.class),
          servers.answered());
    }
  }

  /** Auto-configuration and the web example's service. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(CatalogService.class)
  static class WebApp {}

  /** Auto-configuration and the Spring Cloud example's {@code @LoadBalanced} builder. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(CloudBalancedClients.class)
  static class CloudApp {}
}

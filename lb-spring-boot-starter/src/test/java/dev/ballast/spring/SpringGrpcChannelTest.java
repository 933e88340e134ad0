package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.grpc.client.GrpcChannelFactory;

/**
 * Spring Boot's own gRPC client auto-configuration with no code: a channel named {@code orders}
 * configured by {@code spring.grpc.client.channel.orders.target=ballast://orders} and a
 * load-balancing policy name, balanced over real gRPC servers on 127.0.0.1 whose addresses come
 * from {@code ballast.clients.orders.endpoints}.
 */
class SpringGrpcChannelTest {

  private static GrpcServers servers;

  @BeforeAll
  static void startServers() throws Exception {
    servers = GrpcServers.start(3);
  }

  @AfterAll
  static void stopServers() throws Exception {
    servers.close();
  }

  private static ConfigurableApplicationContext start(String... extra) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "ballast.clients.orders.endpoints[0]=127.0.0.1:" + servers.port(0) + ";weight=1",
            "ballast.clients.orders.endpoints[1]=127.0.0.1:" + servers.port(1) + ";weight=2",
            "ballast.clients.orders.endpoints[2]=127.0.0.1:" + servers.port(2) + ";weight=3",
            "spring.grpc.client.channel.orders.target=ballast://orders")
        .properties(extra)
        .run();
  }

  private static ConfigurableApplicationContext start(String policy) {
    return start(new String[] {
        "spring.grpc.client.channel.orders.default.load-balancing-policy=" + policy});
  }

  @Test
  void vnswrrPolicyByPropertySplitsExactlyByTheConfiguredWeights() throws Exception {
    try (ConfigurableApplicationContext ctx = start("vnswrr")) {
      servers.assertExactWeightedSplit(ctx.getBean(GrpcChannelFactory.class).createChannel("orders"));
    }
  }

  @Test
  void withoutAPolicyOfItsOwnTheChannelTakesTheBalancerFromBallastProperties() throws Exception {
    try (ConfigurableApplicationContext ctx =
        start(new String[] {"ballast.clients.orders.balancer=vnswrr"})) {
      servers.assertExactWeightedSplit(ctx.getBean(GrpcChannelFactory.class).createChannel("orders"));
    }
  }

  @Test
  void p2cPeakEwmaPolicyByPropertyServesEveryCall() throws Exception {
    try (ConfigurableApplicationContext ctx = start("p2c_peak_ewma")) {
      servers.assertEveryCallAnswered(
          ctx.getBean(GrpcChannelFactory.class).createChannel("orders"));
    }
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}

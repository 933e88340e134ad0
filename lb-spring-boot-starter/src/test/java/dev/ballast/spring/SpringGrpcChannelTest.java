package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.grpc.EndpointRegistry;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.NoSuchElementException;
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

  /**
   * The client only a gRPC channel uses is no lb-netty client, and closing the context withdraws
   * its endpoints from the process-wide registry, so a channel made later fails naming it.
   */
  @Test
  void aClientOnlyAChannelTargetsIsNoNettyClientAndLeavesTheRegistryOnClose() throws Exception {
    ManagedChannel late;
    try (ConfigurableApplicationContext ctx = start(
        "ballast.clients.orders.balancer=vnswrr",
        "ballast.clients.framed-too.endpoints=127.0.0.1:" + servers.port(0),
        "ballast.clients.framed-too.protocol=framed",
        "spring.grpc.client.channel.other.target=ballast://framed-too")) {
      BallastClients clients = ctx.getBean(BallastClients.class);
      assertThat(clients.names()).containsExactly("framed-too");
      assertThatThrownBy(() -> clients.framed("orders"))
          .isInstanceOf(NoSuchElementException.class)
          .hasMessageContaining("orders has protocol=grpc");
      assertThat(ctx.getBean(BallastSettings.class).get("orders").protocol())
          .isEqualTo(ClientSettings.Protocol.GRPC);
      servers.assertExactWeightedSplit(ctx.getBean(GrpcChannelFactory.class).createChannel("orders"));
      assertThat(EndpointRegistry.global().get("orders")).isPresent();
    }
    assertThat(EndpointRegistry.global().get("orders")).isEmpty();
    assertThat(EndpointRegistry.global().get("framed-too")).isEmpty();
    late = ManagedChannelBuilder.forTarget("ballast://orders").usePlaintext().build();
    try {
      assertThatThrownBy(() -> GrpcServers.call(late))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(e.getStatus().getDescription()).contains("orders");
          });
    } finally {
      GrpcServers.shutdown(late);
    }
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}

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
   * Zone properties reach a Spring gRPC channel as lb-grpc's {@code locality} over gRPC's {@code
   * round_robin}: server 0 in zone a, 1 and 2 in b, the caller in b; every call stays in b,
   * split evenly. (Without the locality policy, zone a would take a third.)
   */
  @Test
  void zonePropertiesKeepASpringChannelsCallsInTheLocalZone() throws Exception {
    try (ConfigurableApplicationContext ctx = start(
        "ballast.clients.orders.endpoints[0]=127.0.0.1:" + servers.port(0) + ";zone=a",
        "ballast.clients.orders.endpoints[1]=127.0.0.1:" + servers.port(1) + ";zone=b",
        "ballast.clients.orders.endpoints[2]=127.0.0.1:" + servers.port(2) + ";zone=b",
        "ballast.clients.orders.balancer=round-robin",
        "ballast.clients.orders.locality.local-zone=b",
        "ballast.clients.orders.locality.caller-zones.a=1",
        "ballast.clients.orders.locality.caller-zones.b=1",
        "ballast.clients.orders.locality.min-cluster-size=1")) {
      assertThat(ctx.getBean(BallastGrpcEndpoints.class).serviceConfig("orders")).isEqualTo(
          java.util.Map.of("loadBalancingConfig", java.util.List.of(java.util.Map.of("locality",
              java.util.Map.of("localZone", "b", "callerZones", java.util.Map.of("a", "1", "b",
                  "1"), "minClusterSize", "1", "childPolicy", java.util.List.of(
                      java.util.Map.of("round_robin", java.util.Map.of())))))));
      ManagedChannel channel = ctx.getBean(GrpcChannelFactory.class).createChannel("orders");
      try {
        for (int i = 0; i < 2_000 && (servers.calls()[1] == 0 || servers.calls()[2] == 0); i++) {
          GrpcServers.call(channel);
        }
        servers.resetCalls();
        for (int i = 0; i < 100; i++) {
          GrpcServers.call(channel);
        }
        int[] calls = servers.calls();
        assertThat(calls[0]).as("none to zone a").isZero();
        assertThat(calls[1] + calls[2]).isEqualTo(100);
        // gRPC's round_robin alternates, but starts each new picker at a random index, and a
        // picker is remade on every state change it hears (a late resolution, a READY), so the
        // split is even only between those: both zone-b servers take a fair part
        assertThat(calls[1]).as("both zone-b servers take calls").isBetween(30, 70);
      } finally {
        GrpcServers.shutdown(channel);
      }
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

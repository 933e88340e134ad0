package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.config.OptionException;
import dev.ballast.examples.spring.OrdersApplication;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.spring.BallastClients;
import dev.ballast.spring.BallastGrpcEndpoints;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A policy written outside Ballast ({@code canary_split}, registered by this module's {@code
 * META-INF/services}) chosen by name and configured in every front end over real servers on
 * 127.0.0.1: three stable servers and one canary, exact shares.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CanarySplitPolicyTest {

  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  @Test
  void anLbNettyClientSplitsExactlyByThePolicysOptions() throws Exception {
    List<FramedServer> servers = framedServers();
    BallastClient<byte[], byte[]> client = open(BallastClient.framed()
        .endpoints(String.join(",", endpoints(servers)))
        .balancer("canary-split", Map.of("percent", 10, "label", "canary"))
        .build());
    for (int i = 0; i < 200; i++) {
      client.call(new byte[] {1}).get(20, TimeUnit.SECONDS);
    }
    assertThat(answered(servers)).containsExactly(60L, 60L, 60L, 20L);
    assertThat(client.balancerName()).isEqualTo("canary_split");
  }

  @Test
  void aMisspeltOptionIsRefusedNamingTheNearest() {
    assertThatThrownBy(() -> BallastClient.framed().balancer("canary_split",
        Map.of("percnt", 10)))
        .isInstanceOf(OptionException.class)
        .hasMessageContaining("policy.percnt")
        .hasMessageContaining("did you mean percent?");
    assertThatThrownBy(() -> BallastClient.framed().balancer("canary_split",
        Map.of("percent", 101)))
        .isInstanceOf(OptionException.class)
        .hasMessageContaining("percent: 101 (expected: 0 to 100)");
  }

  @Test
  void springPropertiesChooseItByNameWithItsOptions() throws Exception {
    List<FramedServer> servers = framedServers();
    ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
        .web(WebApplicationType.NONE)
        .run("--ballast.clients.orders.balancer=canary-split",
            "--ballast.clients.orders.policy.percent=${CANARY_PERCENT:25}",
            "--ballast.clients.orders.endpoints=" + String.join(",", endpoints(servers)));
    opened.add(context);
    BallastClient<byte[], byte[]> client = context.getBean(BallastClients.class).framed("orders");
    for (int i = 0; i < 120; i++) {
      client.call(new byte[] {1}).get(20, TimeUnit.SECONDS);
    }
    assertThat(answered(servers)).containsExactly(30L, 30L, 30L, 30L);
  }

  @Test
  void springGivesAGrpcChannelItsOptionsBesideTheClientsBalancerOptions() {
    // as an lb-netty client made from the same properties reads them (slow start was dropped)
    ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
        .web(WebApplicationType.NONE)
        .run("--ballast.clients.orders.endpoints=127.0.0.1:1", // the application's own client
            "--ballast.clients.payments.protocol=grpc",
            "--ballast.clients.payments.balancer=canary-split",
            "--ballast.clients.payments.policy.percent=10",
            "--ballast.clients.payments.slow-start.window=30s",
            "--ballast.clients.payments.endpoints=127.0.0.1:1;canary=true,127.0.0.1:2");
    opened.add(context);

    Map<String, ?> serviceConfig = context.getBean(BallastGrpcEndpoints.class)
        .serviceConfig("payments");

    Map<String, Object> policy = Map.of("percent", "10", "slowStart.window", "30s");
    assertThat(serviceConfig).isEqualTo(Map.of("loadBalancingConfig",
        List.of(Map.of("canary_split", policy))));
    assertThat(io.grpc.LoadBalancerRegistry.getDefaultRegistry().getProvider("canary_split")
        .parseLoadBalancingPolicyConfig(policy).getError()).isNull();
  }

  @Test
  void springRefusesAMisspeltOptionOfItNamingTheProperty() {
    assertThatThrownBy(() -> new SpringApplicationBuilder(OrdersApplication.class)
        .web(WebApplicationType.NONE)
        .run("--ballast.clients.orders.balancer=canary_split",
            "--ballast.clients.orders.policy.lable=canary").close())
        .rootCause()
        .hasMessageContaining("ballast.clients.orders.policy.lable")
        .hasMessageContaining("did you mean label?");
  }

  @Test
  void aGrpcServiceConfigChoosesItByNameWithItsOptions() throws Exception {
    List<String> addresses = new ArrayList<>();
    for (String name : List.of("a", "b", "c", "canary")) {
      Server server = grpcServer(name);
      addresses.add("127.0.0.1:" + server.getPort() + (name.equals("canary") ? ";canary=true" : ""));
    }
    ManagedChannel channel = ManagedChannelBuilder
        .forTarget("ballast:///" + String.join(",", addresses))
        .defaultServiceConfig(Map.of("loadBalancingConfig",
            List.of(Map.of("canary_split", Map.of("percent", 40.0)))))
        .usePlaintext()
        .build();
    opened.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    // until every subchannel is READY and in the split (a new one remakes the picker, and so the
    // split's count): bounded, until all four have answered
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < 2_000 && seen.size() < 4; i++) {
      seen.add(ClientCalls.blockingUnaryCall(channel, WhoServer.WHO,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS).withWaitForReady(), ""));
    }
    assertThat(seen).containsExactlyInAnyOrder("a", "b", "c", "canary");
    Map<String, Integer> answered = new TreeMap<>();
    for (int i = 0; i < 150; i++) {
      answered.merge(ClientCalls.blockingUnaryCall(channel, WhoServer.WHO,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS).withWaitForReady(), ""),
          1, Integer::sum);
    }
    assertThat(answered).isEqualTo(Map.of("a", 30, "b", 30, "c", 30, "canary", 60));
  }

  @Test
  void aGrpcServiceConfigWithAMisspeltOptionIsRefusedNamingTheNearest() {
    io.grpc.NameResolver.ConfigOrError parsed = io.grpc.LoadBalancerRegistry.getDefaultRegistry()
        .getProvider("canary_split").parseLoadBalancingPolicyConfig(Map.of("percnt", 10.0));
    assertThat(parsed.getError()).isNotNull();
    assertThat(parsed.getError().getDescription())
        .startsWith("canary_split config: percnt: ").contains("did you mean percent?");
  }

  private List<FramedServer> framedServers() {
    List<FramedServer> servers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      servers.add(open(FramedServer.start(r -> CompletableFuture.completedFuture(r.payload()))));
    }
    return servers;
  }

  /** Three stable servers and, last, the canary. */
  private static List<String> endpoints(List<FramedServer> servers) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      out.add("127.0.0.1:" + servers.get(i).port() + (i == servers.size() - 1 ? ";canary=true"
          : ""));
    }
    return out;
  }

  private static List<Long> answered(List<FramedServer> servers) {
    return servers.stream().map(FramedServer::requests).collect(Collectors.toList());
  }

  private <T extends AutoCloseable> T open(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  private Server grpcServer(String name) throws Exception {
    Server server = WhoServer.start(name);
    opened.add(() -> server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return server;
  }
}

package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.discovery.etcd.EtcdRegistrar;
import dev.ballast.discovery.etcd.EtcdServer;
import dev.ballast.discovery.zookeeper.ZooKeeperRegistrar;
import dev.ballast.grpc.EndpointRegistry;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import io.etcd.jetcd.Client;
import io.grpc.ManagedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
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
 * Properties only: a client fed by ZooKeeper, one by etcd, and Spring gRPC channels on a
 * registry: {@code ballast://grpc-orders} (a client whose endpoints come from etcd, with its
 * balancer) and {@code etcd://...} directly. Real servers: Curator's TestingServer, etcd.
 */
class DiscoveryPropertiesTest {

  private static TestingServer zk;
  private static EtcdServer etcd;
  private static Client etcdClient;
  private static ZooKeeperRegistrar zkRegistrar;
  private static EtcdRegistrar etcdRegistrar;
  private static GrpcServers grpc;
  private static final FramedServer BACKEND_A = FramedServer.start(reply("a"));
  private static final FramedServer BACKEND_B = FramedServer.start(reply("b"));

  @BeforeAll
  static void startRegistries() throws Exception {
    zk = new TestingServer(true);
    etcd = EtcdServer.start();
    etcdClient = Client.builder().endpoints(etcd.clientUrl()).build();
    grpc = GrpcServers.start(3);
    zkRegistrar = ZooKeeperRegistrar.connect(zk.getConnectString(), "/services");
    zkRegistrar.register("zk-orders", Endpoint.parse("127.0.0.1:" + BACKEND_A.port()));
    etcdRegistrar = EtcdRegistrar.of(etcdClient, "/services/");
    etcdRegistrar.register("etcd-orders", Endpoint.parse("127.0.0.1:" + BACKEND_B.port()));
    for (int i = 0; i < 3; i++) {
      etcdRegistrar.register("grpc",
          Endpoint.parse("127.0.0.1:" + grpc.port(i) + ";weight=" + (i + 1)));
    }
  }

  @AfterAll
  static void stopRegistries() throws Exception {
    zkRegistrar.close();
    etcdRegistrar.close();
    etcdClient.close();
    grpc.close();
    BACKEND_A.close();
    BACKEND_B.close();
    zk.close();
    etcd.close();
  }

  @Test
  void aZooKeeperConnectionTimeoutGoesIntoTheTarget() {
    dev.ballast.core.config.Values v = new dev.ballast.core.config.Values();
    v.put("zookeeper.connect", "10.0.0.5:2181");
    v.put("zookeeper.path", "/services/orders");
    v.put("zookeeper.connectionTimeout", java.time.Duration.ofMillis(2500));
    assertThat(dev.ballast.spring.internal.Discovery.target(v))
        .isEqualTo("zookeeper://10.0.0.5:2181/services/orders?connectionTimeout=2500ms");
  }

  @Test
  void clientsAndChannelsFollowRegistriesFromPropertiesAlone() throws Exception {
    String etcdServers = etcd.hostPort();
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "ballast.clients.zk-orders.discovery.zookeeper.connect=" + zk.getConnectString(),
            "ballast.clients.zk-orders.discovery.zookeeper.path=/services/zk-orders",
            "ballast.clients.zk-orders.discovery.zookeeper.connection-timeout=2s",
            "ballast.clients.etcd-orders.discovery.etcd.endpoints=" + etcdServers,
            "ballast.clients.etcd-orders.discovery.etcd.prefix=/services/etcd-orders/",
            "ballast.clients.grpc-orders.discovery.etcd.endpoints=" + etcdServers,
            "ballast.clients.grpc-orders.discovery.etcd.prefix=/services/grpc/",
            "ballast.clients.grpc-orders.balancer=vnswrr",
            "spring.grpc.client.channel.orders.target=ballast://grpc-orders",
            "spring.grpc.client.channel.direct.target=etcd://" + etcdServers + "/services/grpc/",
            "spring.grpc.client.channel.direct.default.load-balancing-policy=vnswrr")
        .run()) {
      BallastClients clients = ctx.getBean(BallastClients.class);
      assertThat(callWhenUp(clients.framed("zk-orders"))).isEqualTo("a");
      assertThat(callWhenUp(clients.framed("etcd-orders"))).isEqualTo("b");
      // ballast://grpc-orders fails calls until grpc-orders' own source has published its first
      // listing: wait for it, as for the clients'
      CompletableFuture<Void> published = new CompletableFuture<>();
      try (EndpointRegistry.Subscription s = EndpointRegistry.global().subscribe("grpc-orders",
          es -> {
            if (es.size() == 3) {
              published.complete(null);
            }
          })) {
        published.get(10, TimeUnit.SECONDS);
      }
      GrpcChannelFactory channels = ctx.getBean(GrpcChannelFactory.class);
      for (String name : new String[] {"orders", "direct"}) {
        ManagedChannel ch = channels.createChannel(name);
        grpc.assertExactWeightedSplit(ch);
      }
      // Only a channel uses grpc-orders: no lb-netty client; what etcd pushed is published.
      assertThat(clients.names()).containsExactlyInAnyOrder("zk-orders", "etcd-orders");
      assertThat(EndpointRegistry.global().get("grpc-orders").orElseThrow()).hasSize(3);
    }
    // Closing the context withdraws what the source pushed last.
    assertThat(EndpointRegistry.global().get("grpc-orders")).isEmpty();
  }

  // the first push arrives a few milliseconds after start-up (a call made before waits for it)
  private static String callWhenUp(BallastClient<byte[], byte[]> client) throws Exception {
    client.endpointsWhen(es -> !es.isEmpty()).get(10, TimeUnit.SECONDS);
    return new String(client.call(new byte[] {1}).get(5, TimeUnit.SECONDS),
        StandardCharsets.UTF_8);
  }

  private static FramedServer.Handler reply(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return req -> CompletableFuture.completedFuture(bytes);
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}

}

package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UInt32Value;
import dev.ballast.core.config.Values;
import dev.ballast.netty.BallastClient;
import dev.ballast.spring.internal.Discovery;
import dev.ballast.netty.framed.FramedServer;
import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Properties only: a client whose endpoints come from an xDS control plane
 * ({@code discovery.xds.*}; java-control-plane's server on 127.0.0.1) reaches its servers by
 * the EDS weights, and follows a new snapshot.
 */
class XdsDiscoveryPropertiesTest {

  @Test
  void aClientFollowsAClusterOfAControlPlaneFromPropertiesAlone() throws Exception {
    List<FramedServer> servers = new ArrayList<>();
    List<AtomicLong> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      AtomicLong count = new AtomicLong();
      calls.add(count);
      servers.add(FramedServer.start(req -> {
        count.incrementAndGet();
        return CompletableFuture.completedFuture(req.payload());
      }));
    }
    SimpleCache<String> cache = new SimpleCache<>(node -> node.getId());
    cache.setSnapshot("orders-app", snapshot("1", servers, 1, 2, 3));
    Server controlPlane = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new V3DiscoveryServer(cache).getAggregatedDiscoveryServiceImpl())
        .build().start();
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "ballast.clients.orders.discovery.xds.server=127.0.0.1:" + controlPlane.getPort(),
            "ballast.clients.orders.discovery.xds.cluster=orders-cluster",
            "ballast.clients.orders.discovery.xds.node-id=orders-app",
            "ballast.clients.orders.balancer=vnswrr")
        .run()) {
      BallastClient<byte[], byte[]> client = ctx.getBean(BallastClients.class).framed("orders");
      // before its first snapshot a client has no endpoint (the start-up wait runs from its build)
      client.endpointsWhen(es -> es.size() == 3).get(10, TimeUnit.SECONDS);
      awaitShares(client, calls, 1, 2, 3);
      cache.setSnapshot("orders-app", snapshot("2", servers, 3, 0, 1));
      awaitShares(client, calls, 3, 0, 1);
    } finally {
      controlPlane.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      for (FramedServer s : servers) {
        s.close();
      }
    }
  }

  @Test
  void theOptionsMakeAnXdsTargetOrNameTheirBadPart() {
    assertThat(target("xds.cluster", "orders")).isEqualTo("xds:///orders");
    assertThat(target("xds.cluster", "outbound|8080||orders", "xds.server", "10.0.0.5:18000",
        "xds.nodeId", "app-1")).isEqualTo("xds://10.0.0.5:18000/outbound%7C8080%7C%7Corders"
        + "?node=app-1");
    assertThatThrownBy(() -> target("xds.server", "10.0.0.5:18000"))
        .hasMessageStartingWith("xds.cluster: null (expected: the EDS resource to follow");
    assertThatThrownBy(() -> target("xds.cluster", "orders", "xds.server", "a:1,b:2"))
        .hasMessageStartingWith("xds.server: a:1,b:2 (expected: one host:port");
    assertThatThrownBy(() -> target("xds.cluster", "orders", "xds.nodeId", "app-1"))
        .hasMessageStartingWith("xds.nodeId: app-1 (expected: with xds.server");
    assertThatThrownBy(() -> target("xds.cluster", "orders", "etcd.prefix", "/orders/"))
        .hasMessageContaining("two registries");
  }

  private static String target(String... keyValues) {
    Values v = new Values();
    for (int i = 0; i < keyValues.length; i += 2) {
      v.put(keyValues[i], keyValues[i + 1]);
    }
    return Discovery.target(v);
  }

  // 20 turns of the weights give each server exactly 20 times its weight (VNSWRR); 10 s at most
  private static void awaitShares(BallastClient<byte[], byte[]> client, List<AtomicLong> calls,
      int... weights) throws Exception {
    int total = Arrays.stream(weights).sum();
    long[] want = Arrays.stream(weights).mapToLong(w -> 20L * w).toArray();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long[] got = null;
    while (System.nanoTime() < end) {
      calls.forEach(c -> c.set(0));
      for (int i = 0; i < 20 * total; i++) {
        client.call(new byte[] {1}).get(5, TimeUnit.SECONDS);
      }
      got = calls.stream().mapToLong(AtomicLong::get).toArray();
      if (Arrays.equals(got, want)) {
        return;
      }
    }
    assertThat(got).as("calls per server").containsExactly(want);
  }

  // one locality; a weight of 0 leaves the server out
  private static Snapshot snapshot(String version, List<FramedServer> servers, int... weights) {
    LocalityLbEndpoints.Builder locality = LocalityLbEndpoints.newBuilder()
        .setLocality(Locality.newBuilder().setZone("us-east-1a"));
    for (int i = 0; i < weights.length; i++) {
      if (weights[i] > 0) {
        locality.addLbEndpoints(LbEndpoint.newBuilder()
            .setEndpoint(Endpoint.newBuilder().setAddress(Address.newBuilder().setSocketAddress(
                SocketAddress.newBuilder().setAddress("127.0.0.1")
                    .setPortValue(servers.get(i).port()))))
            .setLoadBalancingWeight(UInt32Value.of(weights[i])));
      }
    }
    return Snapshot.create(List.of(), List.of(ClusterLoadAssignment.newBuilder()
        .setClusterName("orders-cluster").addEndpoints(locality).build()), List.of(), List.of(),
        List.of(), version);
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}

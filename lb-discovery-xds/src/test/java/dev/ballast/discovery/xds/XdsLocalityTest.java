package dev.ballast.discovery.xds;

import static dev.ballast.discovery.xds.ControlPlane.cla;
import static dev.ballast.discovery.xds.ControlPlane.endpoint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.framed.FramedServer;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * EDS localities and priorities driving lb-core's priorities, localities and zone-aware routing
 * ({@code locality.*}) in an lb-netty client, over real framed servers: Envoy's P0/P1 spill when
 * half of P0 turns unhealthy, and a caller's own zone preferred while it can take the load.
 */
class XdsLocalityTest {

  private static final String NODE = "orders-client";
  private static final String CLUSTER = "orders";

  private ControlPlane controlPlane;
  private final List<FramedServer> servers = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    controlPlane = new ControlPlane();
    for (int i = 0; i < 8; i++) {
      servers.add(FramedServer.start(FramedServer.echo()));
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (FramedServer s : servers) {
      s.close();
    }
    controlPlane.close();
  }

  private BallastClient<byte[], byte[]> client(Map<String, ?> locality) {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed().name(CLUSTER)
        .source(XdsSource.builder(XdsBootstrap.of(controlPlane.address(), NODE), CLUSTER)
            .backoff(n -> Duration.ofMillis(50)).build())
        .balancer(Algorithm.ROUND_ROBIN).timeout(Duration.ofSeconds(2));
    ClientOptions.CLIENT.apply(b, Map.of("locality", locality));
    return b.build();
  }

  @Test
  void halfOfPriorityZeroUnhealthySpillsThirtyPercentToPriorityOne() throws Exception {
    // P0: servers 0-3 in zone a; P1: servers 4-5 in zone b
    controlPlane.setEndpoints(NODE, "1", cla(CLUSTER,
        locality("a", 0, ep(0, HealthStatus.HEALTHY), ep(1, HealthStatus.HEALTHY),
            ep(2, HealthStatus.HEALTHY), ep(3, HealthStatus.HEALTHY)),
        locality("b", 1, ep(4, HealthStatus.HEALTHY), ep(5, HealthStatus.HEALTHY))));
    try (BallastClient<byte[], byte[]> client = client(Map.of("overprovisioningFactor", 1.4))) {
      callUntil(client, () -> client.endpoints().size() == 6);
      long[] before = counts();
      calls(client, 400);
      assertThat(delta(before, 4, 6)).as("calls to P1 while P0 is healthy").isZero();

      controlPlane.setEndpoints(NODE, "2", cla(CLUSTER,
          locality("a", 0, ep(0, HealthStatus.HEALTHY), ep(1, HealthStatus.HEALTHY),
              ep(2, HealthStatus.UNHEALTHY), ep(3, HealthStatus.DRAINING)),
          locality("b", 1, ep(4, HealthStatus.HEALTHY), ep(5, HealthStatus.HEALTHY))));
      callUntil(client, () -> client.endpoints().stream()
          .filter(e -> e.label("health").equals("unhealthy")).count() == 2);
      before = counts();
      calls(client, 2000);
      // Envoy: P0 health 50% x 1.4 = 70% of the load, P1 the remaining 30%
      long p1 = delta(before, 4, 6);
      assertThat(p1).as("calls to P1 of 2000").isBetween(600L - 93, 600L + 93); // 4.5 sigma
      assertThat(delta(before, 2, 4)).as("calls to P0's unhealthy endpoints").isZero();
    }
  }

  @Test
  void aCallerPrefersItsOwnZoneWhileItCanTakeTheLoad() throws Exception {
    // one priority, zones a (servers 0-3) and b (servers 4-7)
    controlPlane.setEndpoints(NODE, "1", cla(CLUSTER,
        locality("a", 0, ep(0, HealthStatus.HEALTHY), ep(1, HealthStatus.HEALTHY),
            ep(2, HealthStatus.HEALTHY), ep(3, HealthStatus.HEALTHY)),
        locality("b", 0, ep(4, HealthStatus.HEALTHY), ep(5, HealthStatus.HEALTHY),
            ep(6, HealthStatus.HEALTHY), ep(7, HealthStatus.HEALTHY))));
    try (BallastClient<byte[], byte[]> client = client(Map.of("localZone", "a",
        "callerZones", Map.of("a", 1, "b", 1)))) {
      callUntil(client, () -> client.endpoints().size() == 8);
      long[] before = counts();
      calls(client, 400);
      assertThat(delta(before, 0, 4)).as("calls to zone a").isEqualTo(400);
    }
  }

  private static LocalityLbEndpoints locality(String zone, int priority, LbEndpoint... eps) {
    return LocalityLbEndpoints.newBuilder().setLocality(Locality.newBuilder().setZone(zone))
        .setPriority(priority).addAllLbEndpoints(List.of(eps)).build();
  }

  private LbEndpoint ep(int server, HealthStatus health) {
    return endpoint("127.0.0.1", servers.get(server).port(), 1, health);
  }

  private long[] counts() {
    return servers.stream().mapToLong(FramedServer::requests).toArray();
  }

  private long delta(long[] before, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += servers.get(i).requests() - before[i];
    }
    return sum;
  }

  private static void calls(BallastClient<byte[], byte[]> client, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      client.call(new byte[] {1}).get(5, TimeUnit.SECONDS);
    }
  }

  private static void callUntil(BallastClient<byte[], byte[]> client, BooleanSupplier done)
      throws Exception {
    // a cold JVM on a busy machine may take longer than the client's startup wait for the
    // first set: wait for it here rather than call into an empty client
    client.endpointsWhen(es -> !es.isEmpty()).get(10, TimeUnit.SECONDS);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 10 s: " + client.endpoints());
      }
      calls(client, 1);
    }
  }
}

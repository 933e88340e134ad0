package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.health.HealthChecker;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.status.EndpointStatus;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.ManualSource;
import dev.ballast.netty.testing.RefusedPort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BallastClient#status()} over real framed servers on loopback: each endpoint's weight,
 * ramp, latency estimate and health with its cause (an ejection, a failed check), a composite's
 * levels, and the source's last update and rejections.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatusTest {

  private final List<FramedServer> servers = new ArrayList<>();
  // server i answers with an error while failing[i] is set
  private final AtomicBoolean[] failing = new AtomicBoolean[4];
  private final AtomicLong now = new AtomicLong();

  StatusTest() {
    for (int i = 0; i < failing.length; i++) {
      AtomicBoolean f = new AtomicBoolean();
      failing[i] = f;
      servers.add(FramedServer.start(req -> f.get()
          ? CompletableFuture.failedFuture(new IllegalStateException("down"))
          : CompletableFuture.completedFuture(req.payload())));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  private Endpoint endpoint(int i, String labels) {
    return Endpoint.parse("127.0.0.1:" + servers.get(i).port() + labels);
  }

  private static void calls(BallastClient<byte[], byte[]> client, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      byte[] payload = {(byte) i};
      assertThat(client.call(payload).get(10, TimeUnit.SECONDS)).containsExactly(payload);
    }
  }

  private static EndpointStatus at(BalancerStatus status, Endpoint e) {
    return status.endpoints().stream().filter(s -> s.address().equals(e.address())).findFirst()
        .orElseThrow();
  }

  @Test
  void eachEndpointsStateWithItsRampLatencyAndAnEjectionsCause() throws Exception {
    Endpoint a = endpoint(0, ";weight=2;zone=z1");
    Endpoint b = endpoint(1, "");
    Endpoint c = endpoint(2, "");
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().name("orders")
        .endpoints(List.of(a, b)).balancer(Algorithm.P2C_PEAK_EWMA)
        .balancerConfig(BalancerConfig.builder().ticker(now::get)
            .slowStart(Duration.ofSeconds(10)).build())
        .outlierDetection(OutlierDetection.builder().consecutiveFailures(1)
            .maxEjectionPercent(50).baseEjectionTime(Duration.ofMinutes(5)).build())
        .build()) {
      calls(client, 20);
      client.updateEndpoints(List.of(a, b, c)); // c joins after the first set: it ramps

      BalancerStatus before = client.status();
      assertThat(before.name()).isEqualTo("orders");
      assertThat(before.policy()).isEqualTo("p2c_peak_ewma");
      assertThat(before.source()).isNull();
      assertThat(before.levels()).isEmpty();
      assertThat(before.endpoints()).extracting(EndpointStatus::address)
          .containsExactly(a.address(), b.address(), c.address());
      EndpointStatus sa = at(before, a);
      assertThat(sa.weight()).isEqualTo(2);
      assertThat(sa.zone()).isEqualTo("z1");
      assertThat(sa.labels()).containsEntry("zone", "z1");
      assertThat(sa.ramp()).isEqualTo(1.0);
      assertThat(sa.health()).isEqualTo(Health.HEALTHY);
      assertThat(sa.healthCause()).isNull();
      assertThat(sa.pending()).isZero();
      assertThat(sa.availability()).isEqualTo(Availability.OPEN);
      assertThat(at(before, c).ramp()).as("c just joined").isLessThan(1.0);
      assertThat(before.endpoints()).anySatisfy(e -> assertThat(e.rttEstimateNanos()).isPositive());

      now.addAndGet(Duration.ofSeconds(10).toNanos());
      assertThat(at(client.status(), c).ramp()).as("after its window").isEqualTo(1.0);

      failing[0].set(true);
      for (int i = 0; i < 50 && !at(client.status(), a).health().equals(Health.UNHEALTHY); i++) {
        try {
          client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
          // a's error, while it is not ejected yet
        }
      }
      BalancerStatus after = client.status();
      EndpointStatus ejected = at(after, a);
      assertThat(ejected.health()).isEqualTo(Health.UNHEALTHY);
      assertThat(ejected.availability()).isEqualTo(Availability.CLOSED);
      assertThat(ejected.healthCause()).startsWith("outlier detection: ")
          .contains("consecutive");
      assertThat(at(after, b).healthCause()).isNull();
      assertThat(after.canTakeCalls()).isTrue();
      assertThat(after.downReason()).isNull();
    }
  }

  @Test
  void anEndpointRefusingConnectionsSaysWhyAndIsDownWhileThePoolKeepsTrying() throws Exception {
    try (RefusedPort r1 = new RefusedPort(); RefusedPort r2 = new RefusedPort()) {
      Endpoint up = endpoint(0, "");
      // no connection kept: the last call's failed connect is said, not taken as down (it stays
      // until the next connect, which only a call makes)
      try (BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(List.of(r1.endpoint(), up)).balancer(Algorithm.ROUND_ROBIN)
          .outlierDetection(OutlierDetection.disabled()).build()) {
        for (int i = 0; i < 4; i++) { // round robin: each endpoint twice
          client.call(new byte[] {1}).handle((r, e) -> null).get(10, TimeUnit.SECONDS);
        }
        BalancerStatus s = client.status();
        assertThat(at(s, r1.endpoint()).availability()).isEqualTo(Availability.OPEN);
        assertThat(at(s, r1.endpoint()).healthCause()).startsWith("connection: last attempt: ")
            .contains("refused");
        assertThat(at(s, r1.endpoint()).health()).isEqualTo(Health.HEALTHY); // no verdict
        assertThat(at(s, up).healthCause()).isNull();
        assertThat(s.canTakeCalls()).isTrue();
      }
      // a pool that keeps a connection retries within a second: every endpoint refusing, the
      // client cannot take calls, and says why
      try (BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(List.of(r1.endpoint(), r2.endpoint())).balancer(Algorithm.ROUND_ROBIN)
          .pool(PoolConfig.builder().minConnections(1).build())
          .outlierDetection(OutlierDetection.disabled()).build()) {
        Await.until(Duration.ofSeconds(10), () -> client.status().toString(),
            () -> !client.status().canTakeCalls());
        BalancerStatus s = client.status();
        assertThat(s.endpoints()).allSatisfy(e -> assertThat(e.availability())
            .isEqualTo(Availability.CLOSED));
        assertThat(s.downReason()).startsWith("no endpoint can take a call: ")
            .contains(r1.endpoint().address() + " closed (connection: ")
            .contains(r2.endpoint().address() + " closed (connection: ");
      }
    }
  }

  @Test
  void aLocalityBalancersLevelsAndAFailedChecksCause() throws Exception {
    Endpoint a = endpoint(0, ";zone=a");
    Endpoint b = endpoint(1, ";zone=a");
    Endpoint c = endpoint(2, ";zone=b;priority=1");
    BallastClient.Builder<byte[], byte[]> builder = BallastClient.framed()
        .endpoints(List.of(a, b, c)).balancer(Algorithm.ROUND_ROBIN)
        .outlierDetection(OutlierDetection.disabled())
        .ticker(now::get)
        .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
            .interval(Duration.ofSeconds(5)).initialJitter(Duration.ZERO).build()).build());
    ClientOptions.CLIENT.apply(builder, Map.of("locality", Map.of("localZone", "a")));
    try (BallastClient<byte[], byte[]> client = builder.build()) {
      HealthChecker<?> checker = client.stack().healthChecker();
      Await.until(Duration.ofSeconds(10), () -> checker.completed() + " checks of 3",
          () -> checker.completed() >= 3);
      BalancerStatus healthy = client.status();
      assertThat(healthy.policy()).startsWith("locality(");
      assertThat(healthy.levels()).hasSize(3);
      assertThat(healthy.levels().get(0)).startsWith("priority=0 healthy=100%");
      // a local zone alone routes nothing, and the status says why
      assertThat(healthy.levels().get(2))
          .isEqualTo("zone=a off (localZone given without callerZones)");
      assertThat(at(healthy, c).priority()).isEqualTo(1);

      servers.get(0).setServing(false);
      now.addAndGet(Duration.ofSeconds(5).toNanos());
      Await.until(Duration.ofSeconds(10), () -> checker.completed() + " checks of 6",
          () -> checker.completed() >= 6);
      BalancerStatus one = client.status();
      assertThat(at(one, a).health()).isEqualTo(Health.UNHEALTHY);
      assertThat(at(one, a).healthCause()).isEqualTo("active check: unhealthy");
      assertThat(at(one, b).healthCause()).isNull();
      // one of priority 0's two endpoints is down: with Envoy's overprovisioning of 1.4 it keeps
      // 70% of the calls and priority 1 takes the rest
      assertThat(one.levels().get(0)).startsWith("priority=0 healthy=70%");

      servers.get(1).setServing(false);
      servers.get(2).setServing(false);
      now.addAndGet(Duration.ofSeconds(5).toNanos());
      Await.until(Duration.ofSeconds(10), () -> checker.completed() + " checks of 9",
          () -> checker.completed() >= 9);
      BalancerStatus down = client.status();
      assertThat(down.canTakeCalls()).isFalse();
      assertThat(down.downReason()).startsWith("no endpoint can take a call: ")
          .contains(a.address() + " unhealthy (active check: unhealthy)");
    }
  }

  @Test
  void subsetsAndTheSourcesLastUpdateAndRejections() throws Exception {
    ManualSource source = new ManualSource("test-registry");
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().source(source)
        .subsets(List.of(List.of("version")), dev.ballast.core.subset.FallbackPolicy.ANY_ENDPOINT,
            null)
        .build()) {
      source.listener().onEntries(Map.of("a", endpoint(0, ";version=v1").toString(),
          "b", endpoint(1, ";version=v1").toString(), "c", endpoint(2, ";version=v2").toString(),
          "bad", "127.0.0.1:99999"));
      client.endpointsWhen(es -> es.size() == 3).get(10, TimeUnit.SECONDS);
      Await.until(Duration.ofSeconds(10), () -> "" + client.status().source(),
          () -> client.status().source().entries() == 3);
      BalancerStatus status = client.status();
      assertThat(status.policy()).startsWith("label_subset(");
      assertThat(status.levels()).contains("subset {version=v1} endpoints=2",
          "subset {version=v2} endpoints=1", "fallback=ANY_ENDPOINT");
      assertThat(status.source().name()).isEqualTo("test-registry");
      assertThat(status.source().up()).isTrue();
      assertThat(status.source().lastUpdate()).isNotNull();
      assertThat(status.source().updatesApplied()).isEqualTo(1);
      assertThat(status.source().entriesRejected()).isEqualTo(1);
      assertThat(at(status, endpoint(2, "")).labels()).containsEntry("version", "v2");

      source.listener().onFailure(new IllegalStateException("registry gone"));
      assertThat(client.status().source().up()).isFalse();
    }
  }
}

package dev.ballast.netty;


import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.health.HealthChecker;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Await;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zone-aware routing fed by active checks and by outlier detection, over nine real framed backends
 * on loopback labelled by zone (a, b, c): a caller in zone a sends there while zone a can take its
 * calls, spills to b and c by their residual capacity once a's backends fail the check one
 * interval later, and comes back after the next check they pass; an ejection by outlier detection
 * moves the zone's share the same way. The client's clock is a manual one: checks are due only
 * when the test moves it by an interval; the test waits (bounded) for the checks' answers.
 */
class ZoneHealthCheckTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);

  private final List<FramedServer> servers = new ArrayList<>();
  private final AtomicLong now = new AtomicLong();

  // zone a's backends answer with an error while this is set
  private final AtomicBoolean zoneAFailing = new AtomicBoolean();

  @BeforeEach
  void start() {
    for (int i = 0; i < 9; i++) {
      servers.add(FramedServer.start(i >= 3 ? FramedServer.echo() : req -> zoneAFailing.get()
          ? CompletableFuture.failedFuture(new IllegalStateException("zone a down"))
          : CompletableFuture.completedFuture(req.payload())));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  private long[] perZone() {
    long[] r = new long[3];
    for (int i = 0; i < servers.size(); i++) {
      r[i / 3] += servers.get(i).requests();
    }
    return r;
  }

  // servers 0-2 in zone a, 3-5 in b, 6-8 in c
  private List<Endpoint> zonedEndpoints() {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      endpoints.add(Endpoint.of("127.0.0.1", servers.get(i).port(), 1,
          Map.of("zone", String.valueOf((char) ('a' + i / 3)))));
    }
    return endpoints;
  }

  private static void calls(BallastClient<byte[], byte[]> client, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      byte[] payload = {(byte) i};
      assertThat(client.call(payload).get(10, TimeUnit.SECONDS)).containsExactly(payload);
    }
  }

  private static void awaitChecks(HealthChecker<?> checker, long n) {
    Await.until(Duration.ofSeconds(10), () -> checker.completed() + " checks ended of " + n,
        () -> checker.completed() >= n);
  }

  private void zoneAServing(boolean serving) {
    for (int i = 0; i < 3; i++) {
      servers.get(i).setServing(serving);
    }
  }

  @Test
  void aCallerInZoneAStaysThereSpillsWhenItsChecksFailAndComesBackWithinOneInterval()
      throws Exception {
    List<Endpoint> endpoints = zonedEndpoints();
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed()
        .endpoints(endpoints).balancer(Algorithm.ROUND_ROBIN)
        .outlierDetection(OutlierDetection.disabled())
        .ticker(now::get)
        .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
            .interval(INTERVAL).initialJitter(Duration.ZERO).build()).build());
    ClientOptions.CLIENT.apply(b, Map.of("locality", Map.of("localZone", "a",
        "callerZones", Map.of("a", 1, "b", 1, "c", 1))));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      HealthChecker<?> checker = client.stack().healthChecker();
      awaitChecks(checker, 9);
      calls(client, 90);
      assertThat(perZone()).containsExactly(90, 0, 0);

      zoneAServing(false);
      now.addAndGet(INTERVAL.toNanos()); // one interval: the next checks are due
      awaitChecks(checker, 18);
      assertThat(client.stats().subList(0, 3)).allSatisfy(
          s -> assertThat(s.health()).isEqualTo(Health.UNHEALTHY));
      calls(client, 600);
      long[] spilled = perZone();
      assertThat(spilled[0]).as("no call to zone a").isEqualTo(90);
      assertThat(spilled[1] + spilled[2]).isEqualTo(600);
      assertThat(spilled[1]).isBetween(240L, 360L); // half each, by the residual capacity

      zoneAServing(true);
      now.addAndGet(INTERVAL.toNanos());
      awaitChecks(checker, 27);
      calls(client, 30);
      assertThat(perZone()[0]).as("back in zone a").isEqualTo(120);
    }
  }

  @Test
  void ejectedBackendsLeaveTheirZonesShareToTheOtherZones() throws Exception {
    List<Endpoint> endpoints = zonedEndpoints();
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed()
        .endpoints(endpoints).balancer(Algorithm.ROUND_ROBIN)
        .outlierDetection(OutlierDetection.builder().consecutiveFailures(1)
            .maxEjectionPercent(100).baseEjectionTime(Duration.ofMinutes(5)).build())
        .ticker(now::get);
    ClientOptions.CLIENT.apply(b, Map.of("locality", Map.of("localZone", "a",
        "callerZones", Map.of("a", 1, "b", 1, "c", 1))));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      calls(client, 30);
      assertThat(perZone()).containsExactly(30, 0, 0);

      zoneAFailing.set(true);
      // Each failure ejects its backend; bounded: zone a has three.
      for (int i = 0; i < 30 && client.stats().subList(0, 3).stream()
          .anyMatch(s -> !s.ejected()); i++) {
        try {
          client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
          // zone a's error, or a retry's
        }
      }
      assertThat(client.stats().subList(0, 3)).allSatisfy(s -> {
        assertThat(s.ejected()).isTrue();
        assertThat(s.health()).isEqualTo(Health.UNHEALTHY);
      });
      long zoneA = perZone()[0];
      long[] before = perZone();
      calls(client, 600);
      long[] after = perZone();
      assertThat(after[0]).as("no call to zone a once ejected").isEqualTo(zoneA);
      assertThat(after[1] - before[1] + after[2] - before[2]).isEqualTo(600);
      assertThat(after[1] - before[1]).isBetween(240L, 360L);
    }
  }
}

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zone-aware routing fed by active checks, over nine real framed backends on loopback labelled
 * by zone (a, b, c): a caller in zone a sends there while zone a can take its calls, spills to b
 * and c by their residual capacity once a's backends fail the check one interval later, and comes
 * back after the next check they pass. The client's clock is a manual one: checks are due only
 * when the test moves it by an interval; the test waits (bounded) for the checks' answers.
 */
class ZoneHealthCheckTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);

  private final List<FramedServer> servers = new ArrayList<>();
  private final AtomicLong now = new AtomicLong();

  @BeforeEach
  void start() {
    for (int i = 0; i < 9; i++) {
      servers.add(FramedServer.start(FramedServer.echo()));
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
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      endpoints.add(Endpoint.of("127.0.0.1", servers.get(i).port(), 1,
          Map.of("zone", String.valueOf((char) ('a' + i / 3)))));
    }
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
}

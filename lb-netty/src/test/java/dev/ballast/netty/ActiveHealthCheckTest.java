package dev.ballast.netty;


import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.health.HealthChecker;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.Certificates;
import dev.ballast.netty.testing.HealthServer;
import dev.ballast.netty.testing.Nginx;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Active health checks over real servers on loopback: an endpoint failing its health path (HTTP/1.1,
 * HTTP/2) or its ping (framed) takes no call once the check one interval later has failed, and
 * its share comes back after the next check passes. The client's clock is a manual one: a check
 * is due only when the test moves it by an interval, so "within one interval" is exact, and the
 * test waits (bounded) for the checks' answers, never a fixed time.
 */
class ActiveHealthCheckTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final int CALLS = 30;

  private final AtomicLong now = new AtomicLong();

  /** One backend as the test sees it: its calls, and a switch for its health answer. */
  private interface Backend extends AutoCloseable {
    Endpoint endpoint();

    int calls();

    void setHealthy(boolean healthy);

    @Override
    void close();
  }

  private static Backend http(boolean http2) throws InterruptedException {
    HealthServer s = HealthServer.start(http2);
    return new Backend() {
      public Endpoint endpoint() {
        return s.endpoint();
      }

      public int calls() {
        return s.calls();
      }

      public void setHealthy(boolean healthy) {
        s.setHealthy(healthy);
      }

      public void close() {
        s.close();
      }
    };
  }

  private static Backend framed() {
    FramedServer s = FramedServer.start(FramedServer.echo());
    return new Backend() {
      public Endpoint endpoint() {
        return s.endpoint();
      }

      public int calls() {
        return (int) s.requests();
      }

      public void setHealthy(boolean healthy) {
        s.setServing(healthy);
      }

      public void close() {
        s.close();
      }
    };
  }

  private <Req, Rep> BallastClient.Builder<Req, Rep> configure(BallastClient.Builder<Req, Rep> b,
      List<Backend> backends) {
    return b.endpoints(backends.stream().map(Backend::endpoint).toList())
        .balancer(Algorithm.ROUND_ROBIN)
        .outlierDetection(OutlierDetection.disabled())
        .ticker(now::get)
        .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
            .interval(INTERVAL).initialJitter(Duration.ZERO).build()).build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"http/1.1", "h2c", "framed"})
  void aFailingEndpointGetsNoCallsWithinOneIntervalAndItsShareBackAfterItRecovers(String protocol)
      throws Exception {
    List<Backend> backends = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        backends.add(protocol.equals("framed") ? framed() : http(protocol.equals("h2c")));
      }
      if (protocol.equals("framed")) {
        try (BallastClient<byte[], byte[]> client =
            configure(BallastClient.framed(), backends).build()) {
          run(client, backends, () -> call(client, "x".getBytes()));
        }
      } else {
        try (BallastClient<HttpRequest, dev.ballast.netty.http.HttpResponse> client =
            configure(protocol.equals("h2c") ? BallastClient.http2() : BallastClient.http(),
                backends).build()) {
          run(client, backends, () -> call(client, HttpRequest.get("/work")));
        }
      }
    } finally {
      backends.forEach(Backend::close);
    }
  }

  private static <Req> int call(BallastClient<Req, ?> client, Req request) {
    try {
      client.call(request).get(10, TimeUnit.SECONDS);
      return 1;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private void run(BallastClient<?, ?> client, List<Backend> backends, IntSupplier call) {
    HealthChecker<?> checker = client.stack().healthChecker();
    Node<?> sick = node(client, backends.get(0).endpoint());
    awaitChecks(checker, 3); // the first round, due at once
    assertThat(shares(backends, call)).containsExactly(10, 10, 10);

    backends.get(0).setHealthy(false);
    now.addAndGet(INTERVAL.toNanos()); // one interval: the next round is due
    awaitChecks(checker, 6);
    assertThat(sick.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(client.stats().get(0).health()).as("what stats() shows")
        .isEqualTo(Health.UNHEALTHY);
    assertThat(shares(backends, call)).as("no call to the failing endpoint")
        .containsExactly(0, 15, 15);

    backends.get(0).setHealthy(true);
    now.addAndGet(INTERVAL.toNanos());
    awaitChecks(checker, 9);
    assertThat(sick.health()).isEqualTo(Health.HEALTHY);
    assertThat(shares(backends, call)).as("its share is back").containsExactly(10, 10, 10);
  }

  private static void awaitChecks(HealthChecker<?> checker, long n) {
    Await.until(Duration.ofSeconds(10), () -> checker.completed() + " checks ended of " + n,
        () -> checker.completed() >= n);
  }

  private static Node<?> node(BallastClient<?, ?> client, Endpoint e) {
    return client.stack().nodes().stream()
        .filter(n -> n.address().equals(e.address())).findFirst().orElseThrow();
  }

  private static List<Integer> shares(List<Backend> backends, IntSupplier call) {
    int[] before = backends.stream().mapToInt(Backend::calls).toArray();
    for (int i = 0; i < CALLS; i++) {
      call.getAsInt();
    }
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < backends.size(); i++) {
      out.add(backends.get(i).calls() - before[i]);
    }
    return out;
  }

  @Test
  void pingsGoOverTlsToAHostNameAndTheVerdictsFollowTheServer() throws Exception {
    Certificates localhost = Certificates.localhost();
    FramedServer server = FramedServer.builder().tls(SslContextBuilder.forServer(
        localhost.certificate().toFile(), localhost.privateKey().toFile()).build()).start();
    server.setServing(false); // before the first check, due at the first tick
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(Endpoint.of("localhost", server.port())))
        .tls(TlsConfig.builder().trustCertificates(localhost.certificate()).build())
        .ticker(now::get)
        .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
            .interval(INTERVAL).initialJitter(Duration.ZERO).unhealthyThreshold(2).build())
            .build())
        .build()) {
      HealthChecker<?> checker = client.stack().healthChecker();
      Node<?> node = client.stack().nodes().get(0);
      for (int round = 1; round <= 2; round++) {
        awaitChecks(checker, round);
        assertThat(node.health()).as("after %d failed checks of 2", round)
            .isEqualTo(round < 2 ? Health.HEALTHY : Health.UNHEALTHY);
        now.addAndGet(INTERVAL.toNanos());
      }
      server.setServing(true);
      awaitChecks(checker, 3);
      assertThat(node.health()).isEqualTo(Health.HEALTHY);
      assertThat(server.requests()).as("pings are not requests").isZero();
    } finally {
      server.close();
    }
  }

  @Test
  void http2ChecksOverTlsAgainstNginxTakeTheFailingServerOut() throws Exception {
    Certificates localhost = Certificates.localhost();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Nginx sick = Nginx.builder().http2().tls(localhost)
            .directive("location = /ready { return 503; }").body("sick").start();
        Nginx well = Nginx.builder().http2().tls(localhost).body("well").start();
        BallastClient<HttpRequest, dev.ballast.netty.http.HttpResponse> client =
            BallastClient.http2()
                .endpoints(List.of(Endpoint.of("localhost", sick.endpoint().port()),
                    Endpoint.of("localhost", well.endpoint().port())))
                .tls(TlsConfig.builder().trustCertificates(localhost.certificate()).build())
                .balancer(Algorithm.ROUND_ROBIN)
                .outlierDetection(OutlierDetection.disabled())
                .ticker(now::get)
                .meterRegistry(registry)
                .healthCheck(HealthCheck.builder().enabled(true).path("/ready").config(
                    HealthCheckConfig.builder().initialJitter(Duration.ZERO).build()).build())
                .build()) {
      awaitChecks(client.stack().healthChecker(), 2);
      assertThat(client.stats()).extracting(EndpointStats::health)
          .containsExactly(Health.UNHEALTHY, Health.HEALTHY);
      assertThat(registry.get("ballast.client.health").tag("endpoint",
          "localhost:" + sick.endpoint().port()).gauge().value()).isEqualTo(2);
      for (int i = 0; i < 10; i++) {
        assertThat(client.call(HttpRequest.get("/work")).get(10, TimeUnit.SECONDS).bodyText())
            .isEqualTo("well");
      }
      assertThat(sick.accessLog()).hasSize(1).allSatisfy(line ->
          assertThat(line).contains("GET /ready HTTP/2.0\" 503"));
    }
  }

  @Test
  void theOptionsReachTheClientByName() {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed();
    ClientOptions.CLIENT.apply(b, Map.of("healthCheck", Map.of("enabled", true, "path", "/ready",
        "interval", "2s", "unhealthyThreshold", 3)));
    HealthCheck h = b.healthCheck;
    assertThat(h.enabled()).isTrue();
    assertThat(h.path()).isEqualTo("/ready");
    assertThat(h.config().interval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(h.config().unhealthyThreshold()).isEqualTo(3);
    assertThat(ClientOptions.CLIENT.names()).contains("healthCheck.enabled", "healthCheck.path",
        "healthCheck.interval", "healthCheck.maxInFlight");
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Nginx;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A backend that answers errors to everything, beside 4 healthy ones, under P2C peak EWMA (which
 * sees a backend failing fast as the fastest): the response classifier makes its answers
 * failures, so outlier detection ejects it, the balancer and metrics count them as failures, and
 * the idempotent calls that hit it are retried elsewhere. Over HTTP (real nginx answering 503)
 * and over the framed protocol (the remote error flag).
 */
class ErrorBackendTest {

  private static final int CALLS = 2000;
  private static final int CONCURRENCY = 10;

  /**
   * Failure-aware peak EWMA leaves a failing backend only 1 to 6 of the 2,000 calls: one, when
   * its first failure steers every later pick away, so even 2 failures in a row may never come
   * (a loaded run saw 1 of 2,000, and no ejection). Ejecting after one failure checks that the
   * classified failures reach outlier detection.
   */
  private static final OutlierDetection EJECT_AFTER_1 =
      OutlierDetection.builder().consecutiveFailures(1).build();

  @Test
  void http503BackendGetsUnderTwoPercentIsEjectedAndGetsSucceedElsewhere() throws Exception {
    List<Nginx> servers = new ArrayList<>();
    try {
      Nginx bad = Nginx.start(503, "busy");
      servers.add(bad);
      for (int i = 0; i < 4; i++) {
        servers.add(Nginx.start("ok"));
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
          .endpoints(servers.stream().map(Nginx::endpoint).toList())
          .balancer(Algorithm.P2C_PEAK_EWMA)
          .outlierDetection(EJECT_AFTER_1)
          .meterRegistry(registry)
          .build()) {
        Map<String, Integer> answers = run(c -> client.call(HttpRequest.get("/item/" + c))
            .thenApply(r -> r.status() + " " + r.bodyText()));
        long reached = bad.requests();
        System.out.printf("HTTP: the 503 backend got %d of %d calls (%.2f%%)%n", reached, CALLS,
            100.0 * reached / CALLS);
        // Every GET (idempotent by RFC 9110) that met the 503 was retried on another backend.
        assertThat(answers).isEqualTo(Map.of("200 ok", CALLS));
        assertThat(reached).isGreaterThan(0).isLessThan(CALLS / 50);
        assertThat(ejected(client.stats(), bad.endpoint())).isTrue();
        assertThat(client.callStats().retries()).isEqualTo(reached);
        // The balancer's node and the metrics heard failures, not successes.
        EndpointStats s = stats(client.stats(), bad.endpoint());
        assertThat(s.failures()).isEqualTo(reached);
        assertThat(s.successes()).isZero();
        assertThat(registry.get("ballast.client.requests").tag("endpoint", bad.endpoint()
            .address()).tag("outcome", "failed_response").counter().count()).isEqualTo(reached);
      }
    } finally {
      for (Nginx n : servers) {
        n.close();
      }
    }
  }

  @Test
  void framedRemoteErrorBackendGetsUnderTwoPercentIsEjectedAndIdempotentCallsSucceed()
      throws Exception {
    List<FramedServer> servers = new ArrayList<>();
    try {
      FramedServer bad = FramedServer.start(
          req -> CompletableFuture.failedFuture(new IllegalStateException("broken")));
      servers.add(bad);
      for (int i = 0; i < 4; i++) {
        servers.add(FramedServer.start(FramedServer.echo()));
      }
      try (BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(servers.stream().map(FramedServer::endpoint).toList())
          .balancer(Algorithm.P2C_PEAK_EWMA)
          .outlierDetection(EJECT_AFTER_1)
          .build()) {
        CallOptions idempotent = CallOptions.idempotent();
        Map<String, Integer> answers = run(c -> client.call(
                ("call " + c).getBytes(StandardCharsets.UTF_8), idempotent)
            .thenApply(r -> new String(r, StandardCharsets.UTF_8).startsWith("call ")
                ? "echo" : "wrong"));
        long reached = bad.requests();
        System.out.printf("framed: the failing backend got %d of %d calls (%.2f%%)%n", reached,
            CALLS, 100.0 * reached / CALLS);
        assertThat(answers).isEqualTo(Map.of("echo", CALLS));
        assertThat(reached).isGreaterThan(0).isLessThan(CALLS / 50);
        assertThat(ejected(client.stats(), bad.endpoint())).isTrue();
        assertThat(client.callStats().retries()).isEqualTo(reached);
        assertThat(stats(client.stats(), bad.endpoint()).failures()).isEqualTo(reached);
      }
    } finally {
      servers.forEach(FramedServer::close);
    }
  }

  /**
   * Runs {@link #CALLS} calls, {@link #CONCURRENCY} at a time (each ending call starts the
   * next), and counts the answers (a failure counts as its exception's class name).
   */
  private static Map<String, Integer> run(Function<Integer, CompletableFuture<String>> call)
      throws InterruptedException {
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    AtomicInteger issued = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(CALLS);
    Runnable[] next = new Runnable[1];
    next[0] = () -> {
      int n = issued.getAndIncrement();
      if (n >= CALLS) {
        return;
      }
      call.apply(n).whenComplete((answer, e) -> {
        answers.merge(e == null ? answer : e.getClass().getSimpleName() + ": " + e.getMessage(),
            1, Integer::sum);
        done.countDown();
        next[0].run();
      });
    };
    for (int i = 0; i < CONCURRENCY; i++) {
      next[0].run();
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).as("calls ended: " + answers).isTrue();
    return answers;
  }

  private static EndpointStats stats(List<EndpointStats> all, Endpoint endpoint) {
    return all.stream().filter(s -> s.address().equals(endpoint.address())).findFirst()
        .orElseThrow();
  }

  private static boolean ejected(List<EndpointStats> all, Endpoint endpoint) {
    return stats(all, endpoint).ejected();
  }
}

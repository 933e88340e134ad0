package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.testing.Certificates;
import dev.ballast.netty.testing.HttpUpstream;
import dev.ballast.netty.testing.Nginx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 against real nginx with {@code http2}: h2c with prior knowledge and h2 over TLS by
 * ALPN; many streams on one connection; GOAWAY under load; failing backends.
 */
class Http2NginxTest {

  private final Deque<AutoCloseable> running = new ArrayDeque<>();

  /** Closes the servers a test started, the last first. */
  @AfterEach
  void stopServers() throws Exception {
    while (!running.isEmpty()) {
      running.pop().close();
    }
  }

  private <T extends AutoCloseable> T started(T server) {
    running.push(server);
    return server;
  }

  private static BallastClient.Builder<HttpRequest, HttpResponse> client(
      List<Endpoint> endpoints) {
    return BallastClient.http2().endpoints(endpoints).timeout(Duration.ofSeconds(30));
  }

  /** Starts all calls at once and counts the answers (a failure by its exception's name). */
  private static Map<String, Integer> callAll(BallastClient<HttpRequest, HttpResponse> client,
      List<HttpRequest> requests) throws Exception {
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (HttpRequest r : requests) {
      calls.add(client.call(r).handle((rep, e) -> answers.merge(e == null
          ? rep.status() + " " + rep.bodyText() : e.getClass().getSimpleName() + ": "
          + e.getMessage(), 1, Integer::sum)));
    }
    CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
    return answers;
  }

  /** Runs {@code calls} GETs, {@code concurrency} at a time (each ending call starts one). */
  private static Map<String, Integer> closedLoop(BallastClient<HttpRequest, HttpResponse> client,
      int calls, int concurrency) throws Exception {
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    AtomicInteger issued = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(calls);
    Runnable[] next = new Runnable[1];
    next[0] = () -> {
      if (issued.getAndIncrement() >= calls) {
        return;
      }
      client.call(HttpRequest.get("/")).whenComplete((rep, e) -> {
        answers.merge(e == null ? rep.status() + " " + rep.bodyText() : e.toString(), 1,
            Integer::sum);
        done.countDown();
        next[0].run();
      });
    };
    for (int i = 0; i < concurrency; i++) {
      next[0].run();
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).as("calls ended: " + answers).isTrue();
    return answers;
  }

  @Test
  void h2cWithPriorKnowledge() throws Exception {
    try (Nginx nginx = Nginx.builder().http2().body("$server_protocol").start();
        BallastClient<HttpRequest, HttpResponse> client = client(List.of(nginx.endpoint()))
            .build()) {
      HttpResponse r = client.call(HttpRequest.get("/")).get(30, TimeUnit.SECONDS);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("HTTP/2.0");
      assertThat(r.header("content-type")).isEqualTo("text/plain");
      HttpResponse post = client.call(HttpRequest.post("/form", "a=1")).get(30, TimeUnit.SECONDS);
      assertThat(post.bodyText()).isEqualTo("HTTP/2.0");
    }
  }

  @Test
  void h2OverTlsChosenByAlpn() throws Exception {
    Certificates localhost = Certificates.localhost();
    try (Nginx nginx = Nginx.builder().http2().tls(localhost)
            .body("$server_protocol $scheme $http_host").start();
        BallastClient<HttpRequest, HttpResponse> client = client(
            List.of(Endpoint.of("localhost", nginx.endpoint().port())))
            .tls(TlsConfig.builder().trustCertificates(localhost.certificate()).build())
            .build()) {
      Map<String, Integer> answers = callAll(client,
          Collections.nCopies(50, HttpRequest.get("/")));
      assertThat(answers).isEqualTo(Map.of(
          "200 HTTP/2.0 https localhost:" + nginx.endpoint().port(), 50));
      assertThat(client.stats().get(0).connections()).isEqualTo(1);
      // the same server reached as 127.0.0.1, which its certificate does not name
      try (BallastClient<HttpRequest, HttpResponse> wrongName = client(
          List.of(nginx.endpoint())).maxAttempts(1)
          .tls(TlsConfig.builder().trustCertificates(localhost.certificate()).build())
          .build()) {
        assertThat(callAll(wrongName, List.of(HttpRequest.get("/")))).containsOnlyKeys(
            "TlsHandshakeException: TLS handshake failed: No subject alternative names matching IP"
            + " address 127.0.0.1 found [endpoint " + nginx.endpoint().address() + ", attempt 1]");
      }
    }
  }

  @Test
  void oneConnectionCarriesAHundredConcurrentStreams() throws Exception {
    // The upstream answers nothing until 100 requests wait at once: only 100 concurrent
    // streams on the client's one connection to nginx get any answer.
    try (HttpUpstream gate = HttpUpstream.holdingUntil(100);
        Nginx nginx = Nginx.builder().http2().proxyTo(gate.hostPort()).start();
        BallastClient<HttpRequest, HttpResponse> client = client(List.of(nginx.endpoint()))
            .build()) {
      List<HttpRequest> requests = new ArrayList<>();
      for (int i = 0; i < 120; i++) {
        requests.add(HttpRequest.get("/stream/" + i));
      }
      assertThat(callAll(client, requests)).isEqualTo(Map.of("200 ok", 120));
      assertThat(gate.requests()).isEqualTo(120);
      assertThat(client.stats().get(0).connections()).isEqualTo(1);
    }
  }

  @Test
  void theServersStreamLimitIsHonoured() throws Exception {
    // nginx takes 10 streams per connection (a stream past that would be refused, and
    // retried): 30 calls held until 25 wait at once need 3 connections, and none is refused.
    try (HttpUpstream gate = HttpUpstream.holdingUntil(25);
        Nginx nginx = Nginx.builder().http2().directive("http2_max_concurrent_streams 10;")
            .proxyTo(gate.hostPort()).start();
        BallastClient<HttpRequest, HttpResponse> client = client(List.of(nginx.endpoint()))
            .build()) {
      List<HttpRequest> requests = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        requests.add(HttpRequest.get("/limited/" + i));
      }
      assertThat(callAll(client, requests)).isEqualTo(Map.of("200 ok", 30));
      assertThat(client.callStats().retries()).isZero();
      assertThat(client.stats().get(0).connections()).isEqualTo(3);
    }
  }

  @Test
  void aGoAwayUnderLoadLosesNoCallAndRunsNoneTwice() throws Exception {
    // nginx says GOAWAY after 40 requests on a connection; streams above its last stream id
    // were not processed and go again, on a new connection, POSTs included.
    List<Nginx> servers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      servers.add(started(Nginx.builder().http2().directive("keepalive_requests 40;")
          .body("done").start()));
    }
    try (BallastClient<HttpRequest, HttpResponse> client = client(
        servers.stream().map(Nginx::endpoint).toList()).build()) {
      int calls = 400;
      List<HttpRequest> requests = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        requests.add(HttpRequest.post("/order/" + i, "order " + i));
      }
      assertThat(callAll(client, requests)).isEqualTo(Map.of("200 done", calls));
      long processed = servers.get(0).requests() + servers.get(1).requests();
      System.out.printf("h2 GOAWAY: %d calls, %d processed, %d retried as refused%n", calls,
          processed, client.callStats().retries());
      assertThat(processed).isEqualTo(calls); // none lost, none run twice
      assertThat(client.callStats().retries()).isPositive(); // GOAWAYs refused some streams
    }
  }

  @Test
  void weightsAreHonouredOverH2() throws Exception {
    List<Nginx> servers = new ArrayList<>();
    List<Endpoint> endpoints = new ArrayList<>();
    for (int w = 1; w <= 3; w++) {
      Nginx n = started(Nginx.builder().http2().body("ok").start());
      servers.add(n);
      endpoints.add(Endpoint.of("127.0.0.1", n.endpoint().port(), w, Map.of()));
    }
    try (BallastClient<HttpRequest, HttpResponse> client = client(endpoints)
        .balancer(Algorithm.VNSWRR).build()) {
      for (int i = 0; i < 600; i++) {
        assertThat(client.call(HttpRequest.get("/")).get(30, TimeUnit.SECONDS).status())
            .isEqualTo(200);
      }
    }
    for (int w = 1; w <= 3; w++) {
      assertThat(servers.get(w - 1).requests()).as("backend of weight " + w)
          .isEqualTo(100L * w);
    }
  }

  @Test
  void aFailingBackendIsAvoidedOverH2() throws Exception {
    Nginx bad = started(Nginx.builder().http2().status(503).body("busy").start());
    List<Endpoint> endpoints = new ArrayList<>(List.of(bad.endpoint()));
    for (int i = 0; i < 3; i++) {
      endpoints.add(started(Nginx.builder().http2().body("ok").start()).endpoint());
    }
    try (BallastClient<HttpRequest, HttpResponse> client = client(endpoints).build()) {
      List<HttpRequest> requests = Collections.nCopies(20, HttpRequest.get("/"));
      for (int round = 0; round < 25; round++) {
        assertThat(callAll(client, requests)).isEqualTo(Map.of("200 ok", 20));
      }
      long reached = bad.requests();
      System.out.printf("h2: the 503 backend got %d of 500 calls%n", reached);
      assertThat(reached).isLessThan(50);
      assertThat(client.callStats().retries()).isEqualTo(reached);
    }
  }

  @Test
  void aSlowBackendGetsASmallShareOverH2() throws Exception {
    List<HttpUpstream> upstreams = new ArrayList<>();
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HttpUpstream u = started(HttpUpstream.delayed(Duration.ofMillis(i == 0 ? 100 : 2)));
      upstreams.add(u);
      endpoints.add(started(Nginx.builder().http2().proxyTo(u.hostPort()).start()).endpoint());
    }
    try (BallastClient<HttpRequest, HttpResponse> client = client(endpoints)
        .balancerConfig(BalancerConfig.builder().decayTime(Duration.ofMillis(250)).build())
        .build()) {
      assertThat(closedLoop(client, 1000, 10)).isEqualTo(Map.of("200 ok", 1000));
    }
    double slowShare = upstreams.get(0).requests() / 1000.0;
    System.out.printf("h2: the slow backend got %.3f of the calls%n", slowShare);
    assertThat(slowShare).isLessThan(0.25 / 3); // round robin would give it 0.25
  }
}

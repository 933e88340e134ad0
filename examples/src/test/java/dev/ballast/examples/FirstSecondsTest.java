package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's lb-netty HTTP/2 client with its default balancer (P2C peak EWMA) over three
 * identical HTTP/2 servers on 127.0.0.1: every server has its share from the first seconds, and
 * a server that joins later has its share within 2 s. The servers share one I/O thread and the
 * client has one ({@link IdenticalServers}), so that the three ways are identical.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FirstSecondsTest {

  private final IdenticalServers servers = new IdenticalServers();

  @AfterEach
  void stop() {
    servers.close();
  }

  @Test
  void http2ClientGivesIdenticalServersTheirSharesFromTheFirstCall() throws Exception {
    List<Endpoint> endpoints = List.of(servers.http2(), servers.http2(), servers.http2());
    try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http2()
        .eventLoopGroup(servers.clientThread()).endpoints(endpoints)
        .timeout(Duration.ofSeconds(10)).build()) {
      FairShare.assertFairFromTheFirstCall(get(client), servers.answered());
    }
  }

  @Test
  void http2ClientGivesIdenticalServersTheirSharesFromTheFirstSequentialCall() throws Exception {
    List<Endpoint> endpoints = List.of(servers.http2(), servers.http2(), servers.http2());
    try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http2()
        .eventLoopGroup(servers.clientThread()).endpoints(endpoints)
        .timeout(Duration.ofSeconds(10)).build()) {
      FairShare.assertFairFromTheFirstSequentialCall(get(client), servers.answered());
    }
  }

  @Test
  void http2ClientGivesAServerThatJoinsLaterItsShareWithinTwoSeconds() throws Exception {
    List<Endpoint> endpoints = List.of(servers.http2(), servers.http2(), servers.http2());
    Registry registry = new Registry();
    try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http2()
        .eventLoopGroup(servers.clientThread()).source(registry)
        .timeout(Duration.ofSeconds(10)).build()) {
      registry.set(endpoints.subList(0, 2));
      awaitEndpoints(client, 2);
      Callable<?> call = get(client);
      FairShare.calls(8, 1000, call, servers.answered());
      registry.set(endpoints);
      awaitEndpoints(client, 3);
      int[] counts =
          FairShare.lastSecond(8, TimeUnit.SECONDS.toNanos(2), call, servers.answered());
      FairShare.assertShares(counts, 0.5, 2, "the second second after the third joined");
    }
  }

  /** Waits (up to 10 s) until the client has applied the registry's push. */
  private static void awaitEndpoints(BallastClient<?, ?> client, int n) throws Exception {
    client.endpointsWhen(es -> es.size() == n).get(10, TimeUnit.SECONDS);
  }

  private static Callable<HttpResponse> get(BallastClient<HttpRequest, HttpResponse> client) {
    return () -> {
      HttpResponse r = client.call(HttpRequest.get("/orders")).get(10, TimeUnit.SECONDS);
      assertThat(r.status()).isEqualTo(200);
      return r;
    };
  }

  /** A registry of endpoints the test sets, pushed to the client as a whole set. */
  private static final class Registry implements EndpointSource {
    private final AtomicReference<Listener> listener = new AtomicReference<>();

    void set(List<Endpoint> endpoints) {
      Map<String, String> entries = new java.util.HashMap<>();
      for (Endpoint e : endpoints) {
        entries.put(e.address(), e.toString());
      }
      listener.get().onEntries(entries);
    }

    @Override
    public void start(Listener l) {
      listener.set(l);
    }

    @Override
    public String name() {
      return "test-registry";
    }

    @Override
    public void close() {}
  }
}

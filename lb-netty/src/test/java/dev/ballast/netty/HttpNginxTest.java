package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.testing.Nginx;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Item 6: HTTP/1.1 calls balanced over two real nginx servers on loopback. */
class HttpNginxTest {

  @Test
  void balancesOverTwoNginxServers() throws Exception {
    try (Nginx a = Nginx.start("nginx-a");
        Nginx b = Nginx.start("nginx-b");
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(List.of(a.endpoint(), b.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .timeout(Duration.ofSeconds(5))
            .build()) {
      Map<String, Integer> bodies = new HashMap<>();
      for (int i = 0; i < 100; i++) {
        HttpRequest req = i % 2 == 0 ? HttpRequest.get("/hello?i=" + i)
            : HttpRequest.post("/submit", "payload " + i).withHeader("X-Test", "yes");
        HttpResponse res = client.call(req).get(10, TimeUnit.SECONDS);
        assertThat(res.status()).isEqualTo(200);
        assertThat(res.header("Content-Type")).isEqualTo("text/plain");
        bodies.merge(res.bodyText(), 1, Integer::sum);
      }
      assertThat(bodies).containsExactlyInAnyOrderEntriesOf(
          Map.of("nginx-a", 50, "nginx-b", 50));
      // Keep-alive: sequential calls reuse one connection per server.
      assertThat(client.stats()).allSatisfy(s -> {
        assertThat(s.connections()).isEqualTo(1);
        assertThat(s.successes()).isEqualTo(50);
        assertThat(s.pending()).isZero();
        assertThat(s.inFlight()).isZero();
      });
      // Concurrent calls open more connections (one request per HTTP/1.1 connection).
      CompletableFuture<?>[] many = new CompletableFuture<?>[64];
      for (int i = 0; i < many.length; i++) {
        many[i] = client.call(HttpRequest.get("/c" + i));
      }
      CompletableFuture.allOf(many).get(20, TimeUnit.SECONDS);
      assertThat(client.stats()).allSatisfy(s -> assertThat(s.successes()).isEqualTo(82));
    }
  }

  @Test
  void stoppedNginxIsRetriedOnTheOther() throws Exception {
    try (Nginx a = Nginx.start("nginx-a");
        Nginx b = Nginx.start("nginx-b");
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(List.of(a.endpoint(), b.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .build()) {
      assertThat(client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS).status())
          .isEqualTo(200);
      b.close();
      for (int i = 0; i < 10; i++) {
        try {
          HttpResponse r = client.call(HttpRequest.get("/" + i)).get(10, TimeUnit.SECONDS);
          assertThat(r.bodyText()).isEqualTo("nginx-a");
        } catch (ExecutionException e) {
          // A request written on b's connection as it closed may fail, naming b.
          assertThat(e.getCause()).isInstanceOf(BallastException.class);
          assertThat(((BallastException) e.getCause()).endpoint())
              .isEqualTo(b.endpoint().address());
        }
      }
    }
  }
}

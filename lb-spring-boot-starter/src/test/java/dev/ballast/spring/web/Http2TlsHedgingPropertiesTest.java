package dev.ballast.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.testing.Certificates;
import dev.ballast.netty.testing.Nginx;
import dev.ballast.netty.testing.RawServer;
import dev.ballast.spring.BallastClients;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring application that reaches HTTP/2 over TLS with hedging from properties alone, over real
 * nginx servers: one answers, the other holds every request (it passes them to a server that
 * never answers); round robin sends half the calls to the stalled one, and the hedge after 50 ms
 * answers them from the other, over h2 negotiated by ALPN.
 */
class Http2TlsHedgingPropertiesTest {

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void http2OverTlsWithHedgingFromPropertiesOnly() throws Exception {
    Certificates localhost = Certificates.localhost();
    try (RawServer silent = RawServer.start(new byte[0]);
        Nginx fast = Nginx.builder().http2().tls(localhost).body("$server_protocol").start();
        Nginx stalled = Nginx.builder().http2().tls(localhost)
            .proxyTo(silent.endpoint().address()).start();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                "ballast.clients.secure.protocol=http2",
                "ballast.clients.secure.balancer=round-robin",
                // the certificate names localhost
                "ballast.clients.secure.endpoints[0]=localhost:" + stalled.endpoint().port(),
                "ballast.clients.secure.endpoints[1]=localhost:" + fast.endpoint().port(),
                "ballast.clients.secure.tls.enabled=true",
                "ballast.clients.secure.tls.trust-certificates=" + localhost.certificate(),
                "ballast.clients.secure.hedging.delay=50ms",
                "ballast.clients.secure.hedging.budget=1",
                "ballast.clients.secure.timeout=10s",
                "ballast.clients.secure.outlier-detection.enabled=false",
                "spring.main.banner-mode=off")
            .run()) {
      BallastClient<HttpRequest, HttpResponse> secure =
          context.getBean(BallastClients.class).http("secure");
      for (int i = 0; i < 10; i++) {
        long start = System.nanoTime();
        HttpResponse r = secure.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).as("protocol nginx saw").isEqualTo("HTTP/2.0");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("call %d: answered by the hedge, not after the 10 s timeout", i)
            .isLessThan(Duration.ofSeconds(5));
      }
      // round robin gave the stalled server every other call: each was answered by a hedge
      assertThat(secure.callStats().hedgesWon()).as("hedges that answered").isGreaterThanOrEqualTo(4);
    }
  }

  /** The application: auto-configuration and nothing else. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}

package dev.ballast.compare.peer;

import dev.ballast.compare.driver.Driver;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;

/**
 * {@code ./ballast compare}'s driver for Reactor Netty's {@code HttpClient} over HTTP/1.1 or h2c
 * (prior knowledge), its default connection pool, a response timeout of the run's deadline.
 * Reactor Netty has no balancer: the driver takes the targets in turn (round robin by a counter).
 */
public final class ReactorNettyDriver {

  private ReactorNettyDriver() {}

  /** Runs the driver (arguments: see {@link Driver}). */
  public static void main(String[] args) throws Exception {
    Driver.run(args, s -> {
      HttpClient client = HttpClient.create()
          .protocol(s.protocol().equals("h2") ? HttpProtocol.H2C : HttpProtocol.HTTP11)
          .responseTimeout(Duration.ofMillis(s.timeoutMillis()));
      String[] uris = s.targets().stream().map(t -> "http://" + t + "/").toArray(String[]::new);
      AtomicInteger next = new AtomicInteger();
      return () -> client.get()
          .uri(uris[Math.floorMod(next.getAndIncrement(), uris.length)])
          .responseSingle((response, body) -> body.asByteArray().defaultIfEmpty(new byte[0]).map(b -> {
            if (response.status().code() != 200) {
              throw new IllegalStateException("status " + response.status());
            }
            return b;
          }))
          .toFuture();
    });
  }
}

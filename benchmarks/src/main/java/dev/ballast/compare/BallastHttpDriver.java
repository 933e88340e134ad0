package dev.ballast.compare;

import dev.ballast.compare.driver.Driver;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.time.Duration;

/**
 * {@code ./ballast compare}'s driver for lb-netty's HTTP client: {@code BallastClient.http()}
 * (HTTP/1.1) or {@code http2()} (h2c) over the targets with the run's policy and deadline, every
 * other setting at its default (retries, outlier detection, pool).
 */
public final class BallastHttpDriver {

  private static final HttpRequest GET = HttpRequest.get("/");

  private BallastHttpDriver() {}

  /** Runs the driver (arguments: see {@link Driver}). */
  public static void main(String[] args) throws Exception {
    Driver.run(args, s -> {
      BallastClient<HttpRequest, HttpResponse> client =
          (s.protocol().equals("h2") ? BallastClient.http2() : BallastClient.http())
              .name("compare")
              .endpoints(String.join(",", s.targets()))
              .balancer(s.policy())
              .timeout(Duration.ofMillis(s.timeoutMillis()))
              .build();
      return () -> client.call(GET).thenApply(BallastHttpDriver::ok);
    });
  }

  private static HttpResponse ok(HttpResponse r) {
    if (r.status() != 200) {
      throw new IllegalStateException("status " + r.status());
    }
    return r;
  }
}

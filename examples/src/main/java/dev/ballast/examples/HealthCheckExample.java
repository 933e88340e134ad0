package dev.ballast.examples;

import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.time.Duration;

/** lb-netty with active health checks: GET /ready every 2 s on each endpoint. */
public final class HealthCheckExample {

  private HealthCheckExample() {}

  /** A client whose endpoints failing their health path take no calls until they pass again. */
  public static BallastClient<HttpRequest, HttpResponse> client() {
    BallastClient<HttpRequest, HttpResponse> client = BallastClient.http2()
        .endpoints("10.0.0.1:8080;zone=a,10.0.0.2:8080;zone=b")
        .healthCheck(HealthCheck.builder().enabled(true).path("/ready")
            .config(HealthCheckConfig.builder().interval(Duration.ofSeconds(2)).build())
            .build())
        .build();
    return client;
  }
}

package dev.ballast.examples;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.Classification;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.time.Duration;

/** lb-netty over HTTP/1.1: a client balancing GETs over a list of HTTP servers. */
public final class HttpExample {

  /** A client over endpoints such as "10.0.0.1:8080;weight=2,10.0.0.2:8080". */
  public static BallastClient<HttpRequest, HttpResponse> client(String endpoints) {
    return BallastClient.http()
        .endpoints(endpoints)
        .balancer("vnswrr")
        .timeout(Duration.ofSeconds(2))
        .classifier(notFoundIsRetryable()) // optional; ResponseClassifier.http() by default
        .build();
  }

  /** This service's 404s are failures worth retrying elsewhere; the rest as by default. */
  static ResponseClassifier<HttpRequest, HttpResponse> notFoundIsRetryable() {
    return (attempt, response, failure) -> response != null && response.status() == 404
        ? Classification.RETRYABLE_FAILURE
        : ResponseClassifier.http().classify(attempt, response, failure);
  }

  /** Sends one GET over the endpoints given as the first argument. */
  public static void main(String[] args) throws Exception {
    try (BallastClient<HttpRequest, HttpResponse> client = client(args[0])) {
      HttpResponse response = client.call(HttpRequest.get("/orders/42")).get();
      System.out.println(response.status() + " " + response.bodyText());
    }
  }
}

package dev.ballast.examples;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.util.Map;

/** The configuration model from code: a client built from a map of option names to values. */
public final class ConfigurationExample {

  private ConfigurationExample() {}

  /**
   * An HTTP/2 client over endpoints such as "10.0.0.1:8443,10.0.0.2:8443", set from the same
   * names a gRPC service config and the Spring properties use.
   */
  public static BallastClient<HttpRequest, HttpResponse> fromMap(String endpoints) {
    BallastClient.Builder<HttpRequest, HttpResponse> builder = BallastClient.http2();
    ClientOptions.CLIENT.apply(builder, Map.of(
        "endpoints", endpoints,
        "timeout", "2s",
        "slowStart.window", "60s",                      // dotted, or nested as below
        "hedging", Map.of("percentile", 0.95)));        // a bad one: OptionException naming it
    return builder.build();
  }
}

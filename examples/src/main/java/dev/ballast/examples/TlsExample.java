package dev.ballast.examples;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.TlsConfig;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/** lb-netty over HTTP/2 and TLS: h2 chosen by ALPN, the servers checked by host name. */
public final class TlsExample {

  /**
   * An HTTP/2 client over TLS to endpoints such as "api-1.internal:443,api-2.internal:443",
   * trusting the certificate authorities of a PEM file.
   */
  public static BallastClient<HttpRequest, HttpResponse> client(String endpoints, Path caPem) {
    TlsConfig tls = TlsConfig.builder()
        .trustCertificates(caPem)      // default: the JDK's certificate authorities
        // .keyPair(Path.of("client.pem"), Path.of("client.key"))  a client certificate
        .build();                      // TlsConfig.insecureForTestsOnly(): never in production
    return BallastClient.http2()       // BallastClient.http() and .framed() take .tls(...) too
        .endpoints(endpoints)
        .tls(tls)                      // a wrong host name: TlsHandshakeException
        .timeout(Duration.ofSeconds(2))
        .build();
  }

  /** Posts one order over the endpoints and CA file given as arguments. */
  public static void main(String[] args) throws Exception {
    try (BallastClient<HttpRequest, HttpResponse> client = client(args[0], Path.of(args[1]))) {
      HttpResponse response = client.call(HttpRequest.post("/orders", "{\"item\":42}")
          .withHeader("Content-Type", "application/json")).get();
      System.out.println(response.status() + " " + response.headers().getAll("Set-Cookie"));
    }
  }
}

package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.handler.ssl.SslContext;

/**
 * What HTTP/1.1 and HTTP/2 share as protocols: the body limit, TLS, idempotence by method
 * (RFC 9110, section 9.2.2), the HTTP classifier and the default authority.
 */
abstract class HttpProtocols implements Protocol<HttpRequest, HttpResponse> {

  final int maxContentLength;
  final SslContext tls;

  HttpProtocols(int maxContentLength, SslContext tls) {
    this.maxContentLength = maxContentLength;
    this.tls = tls;
  }

  @Override
  public SslContext tls() {
    return tls;
  }

  @Override
  public boolean isIdempotent(HttpRequest request) {
    return request.isIdempotent();
  }

  /**
   * Envoy's load report headers, read in Envoy's order: {@code endpoint-load-metrics-bin} (the
   * base64 of the report, without a prefix), else {@code endpoint-load-metrics} in its TEXT, JSON
   * or BIN form.
   */
  @Override
  public String loadReport(HttpResponse response) {
    String bin = response.header(EndpointLoadMetrics.HEADER_BIN);
    return bin != null ? "BIN " + bin : response.header(EndpointLoadMetrics.HEADER);
  }

  @Override
  public ResponseClassifier<HttpRequest, HttpResponse> classifier() {
    return HttpClassifier.INSTANCE;
  }

  /**
   * The default {@code Host} (or {@code :authority}): the endpoint's host as written, not its
   * resolved address, with the port unless it is the scheme's default (RFC 9110, section 7.2).
   */
  static String authority(Endpoint endpoint, boolean tls) {
    return endpoint.port() == (tls ? 443 : 80)
        ? endpoint.address().substring(0, endpoint.address().lastIndexOf(':'))
        : endpoint.address();
  }

  /** Whether a request of this method carries a length even when its body is empty. */
  static boolean expectsBody(String method) {
    return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
  }
}

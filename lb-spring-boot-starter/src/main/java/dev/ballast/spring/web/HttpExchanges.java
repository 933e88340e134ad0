package dev.ballast.spring.web;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.http.Headers;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/** Spring's request and response to and from Ballast's, for the blocking and reactive paths. */
final class HttpExchanges {

  private HttpExchanges() {}

  /**
   * Returns the client a URI's host names, or {@code null} when the host is no Ballast HTTP
   * client's name (the request then goes elsewhere).
   */
  static BallastClient<HttpRequest, HttpResponse> route(
      Map<String, BallastClient<HttpRequest, HttpResponse>> clients, URI uri) {
    String host = uri.getHost();
    return host == null ? null : clients.get(host);
  }

  /** Starts the call: method, path and query, header fields in order and multiplicity, body. */
  static CompletableFuture<HttpResponse> call(BallastClient<HttpRequest, HttpResponse> client,
      HttpMethod method, URI uri, HttpHeaders headers, byte[] body,
      Map<String, Object> attributes) {
    URI ascii = URI.create(uri.toASCIIString());
    String path = ascii.getRawPath() == null || ascii.getRawPath().isEmpty()
        ? "/" : ascii.getRawPath();
    if (ascii.getRawQuery() != null) {
      path += "?" + ascii.getRawQuery();
    }
    HttpRequest request = HttpRequest.of(method.name(), path, body);
    for (Map.Entry<String, List<String>> h : headers.headerSet()) {
      // The client frames the body itself: Spring's own length is left out.
      if (h.getKey().equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH)) {
        continue;
      }
      for (String v : h.getValue()) {
        request = request.addHeader(h.getKey(), v);
      }
    }
    return client.call(request, options(attributes));
  }

  /** Returns the call's options from the request's attributes: its deadline and its key. */
  private static CallOptions options(Map<String, Object> attributes) {
    CallOptions options = CallOptions.DEFAULT;
    Object timeout = attributes.get(BallastClientHttpRequestFactory.TIMEOUT_ATTRIBUTE);
    if (timeout != null) {
      if (!(timeout instanceof Duration d)) {
        throw new IllegalArgumentException("attribute " + BallastClientHttpRequestFactory
            .TIMEOUT_ATTRIBUTE + ": " + timeout + " (expected: a java.time.Duration)");
      }
      options = options.withTimeout(d);
    }
    Object key = attributes.get(BallastClientHttpRequestFactory.KEY_ATTRIBUTE);
    if (key != null) {
      if (!(key instanceof String k)) {
        throw new IllegalArgumentException("attribute " + BallastClientHttpRequestFactory
            .KEY_ATTRIBUTE + ": " + key + " (expected: a String)");
      }
      options = options.withKey(k);
    }
    return options;
  }

  /** Returns Ballast's header fields as Spring's, names and repeats kept. */
  static HttpHeaders headers(Headers fields) {
    HttpHeaders h = new HttpHeaders();
    for (int i = 0; i < fields.size(); i++) {
      h.add(fields.name(i), fields.value(i));
    }
    return h;
  }

  /** Returns the failure a future reported, without the wrapper that carried it. */
  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Returns the message of a failed call: the request, the client's name, what happened. */
  static String failure(String client, HttpMethod method, URI uri, Throwable cause) {
    return "I/O error on " + method.name() + " request for \"" + uri + "\" through Ballast client "
        + client + ": " + cause.getMessage();
  }
}

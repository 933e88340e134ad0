package dev.ballast.netty.http;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable HTTP/1.1 request: method, path (with query), headers and body. The client adds
 * {@code Host}, {@code Content-Length} and keep-alive itself. Holds no Netty buffer.
 */
public final class HttpRequest {

  private final String method;
  private final String uri;
  private final Map<String, String> headers;
  private final byte[] body;

  private HttpRequest(String method, String uri, Map<String, String> headers, byte[] body) {
    this.method = method;
    this.uri = uri;
    this.headers = headers;
    this.body = body;
  }

  /** Returns a request; {@code method} e.g. {@code GET}, {@code uri} e.g. {@code /a?b=c}. */
  public static HttpRequest of(String method, String uri, byte[] body) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(body, "body");
    if (method.isEmpty()) {
      throw new IllegalArgumentException("method: empty (expected: e.g. GET)");
    }
    if (!uri.startsWith("/")) {
      throw new IllegalArgumentException("uri: " + uri + " (expected: a path starting with /)");
    }
    return new HttpRequest(method.toUpperCase(Locale.ROOT), uri, Map.of(), body);
  }

  /** Returns a GET request for {@code uri}. */
  public static HttpRequest get(String uri) {
    return of("GET", uri, new byte[0]);
  }

  /** Returns a POST request with a UTF-8 body. */
  public static HttpRequest post(String uri, String body) {
    return of("POST", uri, body.getBytes(StandardCharsets.UTF_8));
  }

  /** Returns a copy with one more header (names are case-insensitive, kept lower-case). */
  public HttpRequest withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name.toLowerCase(Locale.ROOT), Objects.requireNonNull(value, "value"));
    return new HttpRequest(method, uri, Map.copyOf(h), body);
  }

  /** Returns the method, upper-case. */
  public String method() {
    return method;
  }

  /**
   * Returns whether the method is idempotent by RFC 9110, section 9.2.2 (GET, HEAD, OPTIONS,
   * TRACE, PUT, DELETE): such a request may be retried after it reached a server, and hedged.
   */
  public boolean isIdempotent() {
    return switch (method) {
      case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
      default -> false;
    };
  }

  /** Returns the path and query. */
  public String uri() {
    return uri;
  }

  /** Returns the headers, lower-case names. */
  public Map<String, String> headers() {
    return headers;
  }

  /** Returns the body (not copied). */
  public byte[] body() {
    return body;
  }

  @Override
  public String toString() {
    return method + " " + uri;
  }
}

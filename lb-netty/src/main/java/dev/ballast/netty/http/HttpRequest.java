package dev.ballast.netty.http;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

/**
 * An immutable HTTP request: method, path (with query), header fields and body, for HTTP/1.1 and
 * HTTP/2 alike. Holds no Netty buffer.
 *
 * <p>Everything is checked as the request is made, so that a request that could not go on the
 * wire as it is fails at once with an {@link IllegalArgumentException} naming the bad part,
 * before any connection is used: the method must be a token, the path a path of visible ASCII
 * characters (no space, CR or LF: RFC 9112, section 3.2), and each header a valid field. The
 * client frames the body itself with {@code Content-Length} and manages the connection, so a
 * {@code Transfer-Encoding}, a {@code Content-Length} other than the body's length, and the
 * connection's own fields ({@code Connection}, {@code Keep-Alive}, {@code Proxy-Connection},
 * {@code Upgrade}, {@code TE} other than {@code trailers}) are refused: together with the
 * client's length they would let a server read part of the body as another request (RFC 9112,
 * section 6.3), and HTTP/2 forbids them (RFC 9113, section 8.2.2). A {@code Host} header is
 * sent as given (as {@code :authority} over HTTP/2); without one, the client sends the
 * endpoint's host name as written in its address.
 */
public final class HttpRequest {

  private final String method;
  private final String uri;
  private final Headers headers;
  private final byte[] body;

  private HttpRequest(String method, String uri, Headers headers, byte[] body) {
    this.method = method;
    this.uri = uri;
    this.headers = headers;
    this.body = body;
  }

  /**
   * Returns a request; {@code method} e.g. {@code GET} (upper-cased), {@code uri} e.g. {@code
   * /a?b=c} (percent-encode anything else than visible ASCII).
   *
   * @throws IllegalArgumentException if the method is not a token or the uri not a valid path
   */
  public static HttpRequest of(String method, String uri, byte[] body) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(body, "body");
    if (method.isEmpty()) {
      throw new IllegalArgumentException("method: empty (expected: a token, e.g. GET)");
    }
    for (int i = 0; i < method.length(); i++) {
      if (!Headers.isTokenChar(method.charAt(i))) {
        throw new IllegalArgumentException("method: \"" + Headers.printable(method)
            + "\" (expected: a token, e.g. GET, without " + Headers.describe(method.charAt(i))
            + ")");
      }
    }
    if (!uri.startsWith("/")) {
      throw new IllegalArgumentException("uri: \"" + Headers.printable(uri)
          + "\" (expected: a path starting with /)");
    }
    for (int i = 0; i < uri.length(); i++) {
      char c = uri.charAt(i);
      if (c <= ' ' || c >= 0x7f || c == '#') {
        throw new IllegalArgumentException("uri: \"" + Headers.printable(uri)
            + "\" (expected: a path of visible ASCII characters, without "
            + Headers.describe(c) + "; percent-encode it)");
      }
    }
    return new HttpRequest(method.toUpperCase(Locale.ROOT), uri, Headers.EMPTY, body);
  }

  /** Returns a GET request for {@code uri}. */
  public static HttpRequest get(String uri) {
    return of("GET", uri, new byte[0]);
  }

  /** Returns a POST request with a UTF-8 body. */
  public static HttpRequest post(String uri, String body) {
    return of("POST", uri, body.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Returns a copy with this header set: it replaces the fields of that name (names are
   * case-insensitive).
   *
   * @throws IllegalArgumentException if the field is not valid, or is one the client manages
   */
  public HttpRequest withHeader(String name, String value) {
    return new HttpRequest(method, uri, headers.with(name, check(name, value)), body);
  }

  /**
   * Returns a copy with one more field of this name, after those it has (a header given twice is
   * sent twice).
   *
   * @throws IllegalArgumentException if the field is not valid, or is one the client manages
   */
  public HttpRequest addHeader(String name, String value) {
    return new HttpRequest(method, uri, headers.plus(name, check(name, value)), body);
  }

  private String check(String name, String value) {
    String n = Headers.checkName(name);
    Headers.checkValue(n, value);
    switch (n) {
      case "transfer-encoding" -> throw new IllegalArgumentException("header transfer-encoding: \""
          + Headers.printable(value) + "\" (expected: none; the client sends the body with a "
          + "Content-Length, and both would conflict)");
      case "content-length" -> {
        if (!value.equals(Integer.toString(body.length))) {
          throw new IllegalArgumentException("header content-length: " + Headers.printable(value)
              + " (expected: " + body.length + ", the body's length, or none)");
        }
      }
      case "connection", "keep-alive", "proxy-connection", "upgrade" ->
          throw new IllegalArgumentException("header " + n + ": \"" + Headers.printable(value)
              + "\" (expected: none; the client manages its connections)");
      case "te" -> {
        if (!value.equalsIgnoreCase("trailers")) {
          throw new IllegalArgumentException("header te: \"" + Headers.printable(value)
              + "\" (expected: trailers, or none)");
        }
      }
      default -> { }
    }
    return value;
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

  /** Returns the header fields (lower-case names, repeated names kept). */
  public Headers headers() {
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

package dev.ballast.netty.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An immutable HTTP response: status, headers (lower-case names; repeated headers joined with
 * {@code ", "}) and body. Any status is a response, not a failure: the caller decides.
 */
public final class HttpResponse {

  private final int status;
  private final Map<String, String> headers;
  private final byte[] body;

  /** Creates a response. */
  public HttpResponse(int status, Map<String, String> headers, byte[] body) {
    this.status = status;
    this.headers = Map.copyOf(headers);
    this.body = body;
  }

  /** Returns the status code, e.g. 200. */
  public int status() {
    return status;
  }

  /** Returns the headers, lower-case names. */
  public Map<String, String> headers() {
    return headers;
  }

  /** Returns the value of a header (name in any case), or {@code null}. */
  public String header(String name) {
    return headers.get(name.toLowerCase(java.util.Locale.ROOT));
  }

  /** Returns the body (not copied). */
  public byte[] body() {
    return body;
  }

  /** Returns the body decoded as UTF-8. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "HttpResponse{" + status + ", " + body.length + " bytes}";
  }
}

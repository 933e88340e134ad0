package dev.ballast.netty.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * An immutable HTTP response: the final status (interim 1xx answers are skipped), the header
 * fields (lower-case names, repeated names kept) and the body. Any status is a response, not a
 * failure: the {@linkplain dev.ballast.netty.ResponseClassifier classifier} and the caller
 * decide.
 */
public final class HttpResponse {

  private final int status;
  private final Headers headers;
  private final byte[] body;

  /**
   * Creates a response.
   *
   * @throws IllegalArgumentException if the status is not a three-digit code
   */
  public HttpResponse(int status, Headers headers, byte[] body) {
    if (status < 100 || status > 999) {
      throw new IllegalArgumentException("status: " + status + " (expected: 100-999)");
    }
    this.status = status;
    this.headers = Objects.requireNonNull(headers, "headers");
    this.body = Objects.requireNonNull(body, "body");
  }

  /** Returns the status code, e.g. 200. */
  public int status() {
    return status;
  }

  /** Returns the header fields. */
  public Headers headers() {
    return headers;
  }

  /** Returns the first value of a header (name in any case), or {@code null}. */
  public String header(String name) {
    return headers.get(name);
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

package dev.ballast.netty.internal;

import dev.ballast.netty.AttemptContext;
import dev.ballast.netty.Classification;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.handler.codec.DateFormatter;
import java.time.Duration;
import java.util.Date;

/** HTTP's default {@link ResponseClassifier}; see {@link ResponseClassifier#http()}. */
public final class HttpClassifier implements ResponseClassifier<HttpRequest, HttpResponse> {

  /** The one instance: it has no state. */
  public static final HttpClassifier INSTANCE = new HttpClassifier();

  private HttpClassifier() {}

  @Override
  public Classification classify(AttemptContext<HttpRequest> attempt, HttpResponse response,
      Throwable failure) {
    if (failure != null) {
      return ResponseClassifier.ofFailure(attempt, failure);
    }
    int status = response.status();
    if (status == 429 || status == 503) {
      long after = retryAfterMillis(response.header("retry-after"), System.currentTimeMillis());
      return after > 0 ? Classification.retryableAfter(Duration.ofMillis(after))
          : Classification.RETRYABLE_FAILURE;
    }
    if (status >= 500) {
      return Classification.failure(attempt.call().isIdempotent());
    }
    return Classification.SUCCESS;
  }

  /**
   * Returns the wait a {@code Retry-After} value asks for, in milliseconds from {@code
   * nowMillis}: delay-seconds, or an HTTP-date in any of its three forms (RFC 9110, sections
   * 10.2.3 and 5.6.7); 0 for none, a date in the past, or a value that is neither.
   */
  static long retryAfterMillis(String value, long nowMillis) {
    if (value == null || value.isBlank()) {
      return 0;
    }
    String v = value.trim();
    if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // more than 10 digits is more than 300 years: clamped later with every duration
      return v.length() > 10 ? Durations.FOREVER.toMillis() : Long.parseLong(v) * 1000;
    }
    Date date = DateFormatter.parseHttpDate(v);
    return date == null ? 0 : Math.max(0, date.getTime() - nowMillis);
  }
}

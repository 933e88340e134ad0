package dev.ballast.netty;

import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.RemoteException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.HttpClassifier;

/**
 * Decides, for each attempt and before anything hears of it, whether its outcome is a success or
 * a failure, and whether it may be retried (after Finagle's {@code ResponseClassifier}). The
 * balancer ({@code Node.complete}), outlier detection, retries, hedging and metrics all act on
 * this one decision, so that an HTTP 503 counts as the failure it is.
 *
 * <p>A failed classification of a response does not turn the response into an exception: when
 * no retry follows, the caller gets the response (a 503 is an answer), and the call counts as
 * failed in the metrics. Replace the default with {@link BallastClient.Builder#classifier}.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
@FunctionalInterface
public interface ResponseClassifier<Req, Rep> {

  /**
   * Classifies one attempt's outcome: its response, or its failure (exactly one is non-null;
   * failures of the stack are {@link BallastException}s, an attempt filter may fail with any
   * exception). Called on the thread that ended the attempt; must not block.
   */
  Classification classify(AttemptContext<Req> attempt, Rep response, Throwable failure);

  /**
   * Returns the framed protocol's default: an answer is a success, a failure (the server's error
   * flag, {@link RemoteException}, included) is a failure, retryable when the request never
   * reached a server or the call is {@linkplain CallContext#isIdempotent() idempotent}.
   */
  static <Req, Rep> ResponseClassifier<Req, Rep> framed() {
    return (attempt, response, failure) ->
        failure == null ? Classification.SUCCESS : ofFailure(attempt, failure);
  }

  /**
   * Returns HTTP's default. Statuses 5xx and 429 are failures; 429 and 503 say that the server
   * did not process the request (RFC 6585, section 4; RFC 9110, section 15.6.4), so they may be
   * retried whatever the method, no sooner than their {@code Retry-After} (seconds or an
   * HTTP-date, RFC 9110, section 10.2.3); other 5xx may be retried when the call is
   * idempotent (by its options, or by its method). Other statuses are successes; failures
   * without a response are classified by {@link #ofFailure}.
   */
  static ResponseClassifier<HttpRequest, HttpResponse> http() {
    return HttpClassifier.INSTANCE;
  }

  /**
   * Classifies a failure without a response the default way: retryable when the request never
   * reached a server ({@link BallastException#reachedServer()} false), or when the call is
   * idempotent.
   */
  static Classification ofFailure(AttemptContext<?> attempt, Throwable failure) {
    boolean unsent = failure instanceof BallastException b && !b.reachedServer();
    return Classification.failure(unsent || attempt.call().isIdempotent());
  }
}

package dev.ballast.netty;

import dev.ballast.netty.internal.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link ResponseClassifier} decided about one attempt's outcome: a success or a failure
 * (for the balancer, outlier detection, retries and metrics alike), whether it may be retried,
 * and how long the server asked the client to wait before retrying ({@code Retry-After}).
 *
 * <p>Immutable. The common answers are constants, so classifying allocates nothing.
 */
public final class Classification {

  /** A success. */
  public static final Classification SUCCESS = new Classification(true, false, 0);
  /** A failure that must not be retried (the request may have had an effect). */
  public static final Classification FAILURE = new Classification(false, false, 0);
  /** A failure that may be retried at once. */
  public static final Classification RETRYABLE_FAILURE = new Classification(false, true, 0);

  private final boolean success;
  private final boolean retryable;
  private final long retryAfterNanos;

  private Classification(boolean success, boolean retryable, long retryAfterNanos) {
    this.success = success;
    this.retryable = retryable;
    this.retryAfterNanos = retryAfterNanos;
  }

  /** Returns {@link #RETRYABLE_FAILURE} or {@link #FAILURE}. */
  public static Classification failure(boolean retryable) {
    return retryable ? RETRYABLE_FAILURE : FAILURE;
  }

  /**
   * Returns a retryable failure whose retry must wait at least {@code retryAfter} (the server's
   * {@code Retry-After}); a retry that could not start before the deadline is not made.
   */
  public static Classification retryableAfter(Duration retryAfter) {
    Objects.requireNonNull(retryAfter, "retryAfter");
    long nanos = Durations.nanos(retryAfter);
    return nanos == 0 ? RETRYABLE_FAILURE : new Classification(false, true, nanos);
  }

  /** Returns whether the outcome is a success. */
  public boolean isSuccess() {
    return success;
  }

  /** Returns whether a failed outcome may be retried (false for a success). */
  public boolean isRetryable() {
    return retryable;
  }

  /** Returns the least wait before a retry, in nanoseconds; 0 when the server named none. */
  public long retryAfterNanos() {
    return retryAfterNanos;
  }

  @Override
  public String toString() {
    if (success) {
      return "success";
    }
    return (retryable ? "retryable failure" : "failure")
        + (retryAfterNanos > 0 ? " (retry after " + retryAfterNanos / 1_000_000 + " ms)" : "");
  }
}

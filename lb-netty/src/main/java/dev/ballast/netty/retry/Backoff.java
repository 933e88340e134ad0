package dev.ballast.netty.retry;

import dev.ballast.netty.Classification;
import dev.ballast.netty.internal.Durations;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long a retry waits (a part of {@link RetryPolicy}). A server's {@code Retry-After} (see
 * {@link Classification#retryAfterNanos()}) lengthens the wait, never shortens it.
 */
@FunctionalInterface
public interface Backoff {

  /**
   * Returns the wait before retry number {@code retry} (1 for the first retry), in nanoseconds.
   *
   * @param random the client's random source, for jitter (thread-safe)
   */
  long delayNanos(int retry, RandomGenerator random);

  /** Returns the backoff that retries at once. */
  static Backoff none() {
    return (retry, random) -> 0;
  }

  /** Returns a constant wait. */
  static Backoff fixed(Duration delay) {
    long nanos = Durations.nanos(Durations.nonNegative("delay", delay));
    return (retry, random) -> nanos;
  }

  /**
   * Returns exponential backoff with full jitter: retry {@code n} waits a uniform random time in
   * {@code [0, min(max, base * 2^(n-1))]} ("Exponential Backoff And Jitter", Marc Brooker, AWS
   * Architecture Blog, 2015; the form gRPC's retry policy uses, gRFC A6), so that clients that
   * failed together do not retry together.
   *
   * @throws IllegalArgumentException if {@code base} is not positive or {@code max < base}
   */
  static Backoff exponential(Duration base, Duration max) {
    long b = Durations.nanos(Durations.positive("base", base));
    long m = Durations.nanos(Durations.positive("max", max));
    if (m < b) {
      throw new IllegalArgumentException("max: " + max + " (expected: >= base " + base + ")");
    }
    return (retry, random) -> {
      int shift = Math.min(Math.max(retry - 1, 0), 62);
      long cap = b > (m >> shift) ? m : b << shift;
      return random.nextLong(cap + 1);
    };
  }
}

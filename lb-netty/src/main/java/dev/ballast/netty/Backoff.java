package dev.ballast.netty;

import java.time.Duration;

/**
 * Moved to {@link dev.ballast.netty.retry.Backoff}; this alias lasts one version. A backoff
 * made here is one of the new type too, so code written against the old name compiles and
 * runs unchanged.
 *
 * @deprecated use {@link dev.ballast.netty.retry.Backoff}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
@FunctionalInterface
public interface Backoff extends dev.ballast.netty.retry.Backoff {

  /** See {@link dev.ballast.netty.retry.Backoff#none()}. */
  static Backoff none() {
    return of(dev.ballast.netty.retry.Backoff.none());
  }

  /** See {@link dev.ballast.netty.retry.Backoff#fixed(Duration)}. */
  static Backoff fixed(Duration delay) {
    return of(dev.ballast.netty.retry.Backoff.fixed(delay));
  }

  /** See {@link dev.ballast.netty.retry.Backoff#exponential(Duration, Duration)}. */
  static Backoff exponential(Duration base, Duration max) {
    return of(dev.ballast.netty.retry.Backoff.exponential(base, max));
  }

  private static Backoff of(dev.ballast.netty.retry.Backoff moved) {
    return moved::delayNanos;
  }
}

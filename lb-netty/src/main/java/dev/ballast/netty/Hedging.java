package dev.ballast.netty;

import java.time.Duration;

/**
 * Moved to {@link dev.ballast.netty.retry.Hedging}; this alias of its factories lasts one
 * version. A final class cannot be aliased as a type: code that only calls the factories
 * ({@code .hedging(Hedging.after(d))}) compiles unchanged, code that declares a variable of the
 * old type must import the new one.
 *
 * @deprecated use {@link dev.ballast.netty.retry.Hedging}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class Hedging {

  private Hedging() {}

  /** See {@link dev.ballast.netty.retry.Hedging#after(Duration)}. */
  public static dev.ballast.netty.retry.Hedging after(Duration delay) {
    return dev.ballast.netty.retry.Hedging.after(delay);
  }

  /** See {@link dev.ballast.netty.retry.Hedging#atPercentile(double)}. */
  public static dev.ballast.netty.retry.Hedging atPercentile(double percentile) {
    return dev.ballast.netty.retry.Hedging.atPercentile(percentile);
  }
}

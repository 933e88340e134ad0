package dev.ballast.netty;

import dev.ballast.core.Ticker;
import java.time.Duration;

/**
 * Moved to {@link dev.ballast.netty.retry.RetryBudget}; this alias of its factories lasts one
 * version. A final class cannot be aliased as a type: code that only calls the factories
 * compiles unchanged, code that declares a variable of the old type must import the new one.
 *
 * @deprecated use {@link dev.ballast.netty.retry.RetryBudget}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class RetryBudget {

  private RetryBudget() {}

  /** See {@link dev.ballast.netty.retry.RetryBudget#create()}. */
  public static dev.ballast.netty.retry.RetryBudget create() {
    return dev.ballast.netty.retry.RetryBudget.create();
  }

  /** See {@link dev.ballast.netty.retry.RetryBudget#create(Duration, int, double, Ticker)}. */
  public static dev.ballast.netty.retry.RetryBudget create(
      Duration ttl, int minRetriesPerSec, double percentCanRetry, Ticker ticker) {
    return dev.ballast.netty.retry.RetryBudget.create(ttl, minRetriesPerSec, percentCanRetry,
        ticker);
  }

  /** See {@link dev.ballast.netty.retry.RetryBudget#none()}. */
  public static dev.ballast.netty.retry.RetryBudget none() {
    return dev.ballast.netty.retry.RetryBudget.none();
  }
}

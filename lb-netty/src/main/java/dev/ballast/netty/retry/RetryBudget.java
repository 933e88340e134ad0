package dev.ballast.netty.retry;

import dev.ballast.core.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Bounds retries to a share of recent requests, so that retries cannot multiply the load on a
 * struggling service (Finagle's {@code RetryBudget}: a token bucket whose deposits expire).
 *
 * <p>Every request {@linkplain #deposit() deposits} one token; every retry {@linkplain
 * #tryWithdraw() withdraws} {@code 1 / percentCanRetry} tokens. Deposits and withdrawals are
 * forgotten after {@code ttl}, counted in ten time slices. A reserve of {@code minRetriesPerSec *
 * ttl} retries is always there, so that a client with little traffic may still retry. The
 * defaults are Finagle's: ttl 10 s, 10 retries per second minimum, 20% of requests.
 *
 * <p>Thread-safe: a deposit adds to a striped counter without a lock (only the first deposit
 * of a time slice takes a short one, to close the slice before); withdrawals take the short
 * lock.
 */
public final class RetryBudget {

  private static final long SCALE = 1000;
  private static final int SLICES = 10;

  private final Duration ttl;
  private final int minRetriesPerSec;
  private final double percentCanRetry;
  private final Ticker ticker;
  private final long deposit;
  private final long withdrawal;
  private final long reserve;
  private final long sliceNanos;
  private final long[] slices = new long[SLICES];
  // deposits made in the current slice and not yet added to it
  private final LongAdder fresh = new LongAdder();
  // index of the slice counting now, in absolute slice numbers; written under the lock
  private volatile long currentSlice;
  private long sum;

  private RetryBudget(Duration ttl, int minRetriesPerSec, double percentCanRetry, Ticker ticker) {
    this.ttl = ttl;
    this.minRetriesPerSec = minRetriesPerSec;
    this.percentCanRetry = percentCanRetry;
    this.ticker = ticker;
    this.deposit = percentCanRetry == 0 ? 0 : SCALE;
    this.withdrawal = percentCanRetry == 0 ? 1 : (long) (SCALE / percentCanRetry);
    double ttlSeconds = ttl.toNanos() / 1e9;
    this.reserve = (long) (minRetriesPerSec * ttlSeconds * withdrawal);
    this.sliceNanos = Math.max(1, ttl.toNanos() / SLICES);
    this.currentSlice = Math.floorDiv(ticker.nanoTime(), sliceNanos);
  }

  /** Returns a budget with Finagle's defaults: 10 s, 10 retries/s minimum, 20% of requests. */
  public static RetryBudget create() {
    return create(Duration.ofSeconds(10), 10, 0.2, Ticker.system());
  }

  /**
   * Returns a budget.
   *
   * @param ttl how long deposits count; in [1 s, 60 s]
   * @param minRetriesPerSec retries allowed per second whatever the traffic; {@code >= 0}
   * @param percentCanRetry the share of requests that may be retried, in [0, 1]
   * @param ticker the time source
   */
  public static RetryBudget create(
      Duration ttl, int minRetriesPerSec, double percentCanRetry, Ticker ticker) {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(ticker, "ticker");
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(Duration.ofSeconds(60)) > 0) {
      throw new IllegalArgumentException("ttl: " + ttl + " (expected: in [1 s, 60 s])");
    }
    if (minRetriesPerSec < 0) {
      throw new IllegalArgumentException(
          "minRetriesPerSec: " + minRetriesPerSec + " (expected: >= 0)");
    }
    if (!(percentCanRetry >= 0 && percentCanRetry <= 1)) {
      throw new IllegalArgumentException(
          "percentCanRetry: " + percentCanRetry + " (expected: in [0, 1])");
    }
    return new RetryBudget(ttl, minRetriesPerSec, percentCanRetry, ticker);
  }

  /** Returns a budget that never allows a retry. */
  public static RetryBudget none() {
    return create(Duration.ofSeconds(1), 0, 0, Ticker.system());
  }

  /** Counts one request. */
  public void deposit() {
    depositAt(ticker.nanoTime());
  }

  /** Counts one request made at {@code nowNanos} on this budget's {@link #ticker()}. */
  public void depositAt(long nowNanos) {
    if (deposit == 0) {
      return;
    }
    if (Math.floorDiv(nowNanos, sliceNanos) != currentSlice) {
      synchronized (this) {
        roll();
      }
    }
    fresh.add(deposit);
  }

  /** Returns the budget's clock. */
  public Ticker ticker() {
    return ticker;
  }

  /** Takes the tokens of one retry if there are enough; returns whether the retry may go. */
  public synchronized boolean tryWithdraw() {
    roll();
    if (reserve + sum >= withdrawal) {
      add(-withdrawal);
      return true;
    }
    return false;
  }

  /** Returns how many retries the budget allows now. */
  public synchronized long balance() {
    roll();
    return Math.max(0, (reserve + sum) / withdrawal);
  }

  private void add(long amount) {
    roll();
    slices[(int) Math.floorMod(currentSlice, (long) SLICES)] += amount;
    sum += amount;
  }

  // Guarded by this: adds the fresh deposits to their slice, then forgets the slices older than
  // the ttl. A deposit racing with the move to the next slice may count in either.
  private void roll() {
    long f = fresh.sumThenReset();
    slices[(int) Math.floorMod(currentSlice, (long) SLICES)] += f;
    sum += f;
    long now = Math.floorDiv(ticker.nanoTime(), sliceNanos);
    if (now - currentSlice <= 0) {
      return;
    }
    long steps = Math.min(SLICES, now - currentSlice);
    for (long s = 1; s <= steps; s++) {
      int i = (int) Math.floorMod(currentSlice + s, (long) SLICES);
      sum -= slices[i];
      slices[i] = 0;
    }
    currentSlice = now;
  }

  @Override
  public String toString() {
    return "RetryBudget{ttl=" + ttl + ", minRetriesPerSec=" + minRetriesPerSec
        + ", percentCanRetry=" + percentCanRetry + "}";
  }
}

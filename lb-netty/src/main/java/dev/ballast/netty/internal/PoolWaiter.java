package dev.ballast.netty.internal;

import dev.ballast.netty.error.AcquireTimeoutException;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An acquire waiting in a {@link ConnectionPool}'s queue for a connection, with its timer: it
 * ends once, with a connection, or a failure ({@link AcquireTimeoutException} when its timer
 * fires first).
 */
final class PoolWaiter<Req, Rep> implements Runnable {
  final CompletableFuture<PooledConnection<Req, Rep>> future = new CompletableFuture<>();
  final int attempt;
  final long timeoutNanos;
  private final ConnectionPool<Req, Rep> pool;
  volatile ScheduledFuture<?> timer;

  PoolWaiter(ConnectionPool<Req, Rep> pool, int attempt, long timeoutNanos) {
    this.pool = pool;
    this.attempt = attempt;
    this.timeoutNanos = timeoutNanos;
  }

  /** The timer fired: the wait fails, if it is still waiting. */
  @Override
  public void run() {
    if (pool.stopWaiting(this)) {
      future.completeExceptionally(new AcquireTimeoutException(
          "no connection free within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"
              + poolState(pool), pool.address(), attempt, null));
    }
  }

  /**
   * Says what a pool is doing, for a wait that ends in vain: a stalled handshake or a failing
   * connect is named, not hidden.
   */
  static String poolState(ConnectionPool<?, ?> pool) {
    int open = pool.connections();
    int opening = pool.connecting();
    Throwable failure = pool.lastConnectFailure();
    String s = open > 0 ? " (" + open + " connections open, all busy"
        : opening > 0 ? " (no connection open; " + opening + " opening, the latest at its "
            + pool.openingStage() + ", not done"
        : " (no connection open";
    return s + (failure != null && open == 0 ? "; last connect failure: " + failure : "") + ")";
  }

  /** Hands over a connection; returns false if the wait had already ended. */
  boolean complete(PooledConnection<Req, Rep> c) {
    cancelTimer();
    return future.complete(c);
  }

  void fail(Throwable t) {
    cancelTimer();
    future.completeExceptionally(t);
  }

  private void cancelTimer() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
  }
}

package dev.ballast.netty.internal;

import dev.ballast.netty.error.ConnectionClosedException;
import dev.ballast.netty.error.PoolClosedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ConnectionPool}'s upkeep, apart from acquire and release: the periodic task that
 * closes idle and expired connections and opens the minimum, and the pool's end (drain, close).
 * Each works under the pool's lock for bookkeeping only; channels close outside it.
 */
final class PoolUpkeep {

  private PoolUpkeep() {
  }

  /**
   * Closes idle and expired connections (while draining, every idle one), and opens up to the
   * minimum.
   */
  static <Req, Rep> void maintain(ConnectionPool<Req, Rep> p) {
    long now = p.ticker.nanoTime();
    long idle = p.config.idleTimeout().toNanos();
    List<PooledConnection<Req, Rep>> toClose = new ArrayList<>();
    int toOpen = 0;
    synchronized (p) {
      if (p.state == ConnectionPool.State.CLOSED) {
        return;
      }
      boolean draining = p.state == ConnectionPool.State.DRAINING;
      for (int i = p.connections.size() - 1; i >= 0; i--) {
        PooledConnection<Req, Rep> c = p.connections.get(i);
        boolean expired = draining || !c.usable(now);
        boolean idleTooLong = now - c.lastUsed >= idle
            && p.connections.size() > p.config.minConnections();
        if (c.inFlight == 0 && (expired || idleTooLong)) {
          c.retired = true;
          p.connections.remove(i);
          toClose.add(c);
        } else if (expired) {
          c.retired = true;
        }
      }
      int have = p.connections.size() + p.connecting;
      if (!draining && have < p.config.minConnections()) {
        toOpen = p.config.minConnections() - have;
        p.connecting += toOpen;
      }
    }
    for (PooledConnection<Req, Rep> c : toClose) {
      c.channel.close();
    }
    for (int i = 0; i < toOpen; i++) {
      p.connect();
    }
  }

  /**
   * Stops new acquires (they fail with {@link PoolClosedException}, which the client retries
   * elsewhere) and closes connections as their requests end; returns a future completed when
   * the pool is closed.
   */
  static <Req, Rep> CompletableFuture<Void> drain(ConnectionPool<Req, Rep> p) {
    List<PoolWaiter<Req, Rep>> failed;
    boolean done;
    synchronized (p) {
      if (p.state == ConnectionPool.State.OPEN) {
        p.state = ConnectionPool.State.DRAINING;
      }
      failed = takeWaiters(p);
      done = p.inFlight == 0;
    }
    failWaiters(p, failed, "connection pool draining");
    if (done) {
      close(p);
    } else {
      maintain(p);
    }
    return p.terminated;
  }

  /**
   * Closes the pool now: waiting acquires fail with {@link PoolClosedException}, every channel
   * is closed (requests on them fail with {@link ConnectionClosedException}). Returns a future
   * completed when every channel has closed.
   */
  static <Req, Rep> CompletableFuture<Void> close(ConnectionPool<Req, Rep> p) {
    List<PoolWaiter<Req, Rep>> failed;
    List<PooledConnection<Req, Rep>> all;
    synchronized (p) {
      if (p.state == ConnectionPool.State.CLOSED) {
        return p.terminated;
      }
      p.state = ConnectionPool.State.CLOSED;
      failed = takeWaiters(p);
      all = new ArrayList<>(p.connections);
      for (PooledConnection<Req, Rep> c : all) {
        c.retired = true;
      }
      p.connections.clear();
    }
    p.reaper.cancel(false);
    failWaiters(p, failed, "connection pool closed");
    CompletableFuture<?>[] closes = new CompletableFuture<?>[all.size()];
    for (int i = 0; i < closes.length; i++) {
      CompletableFuture<Void> cf = new CompletableFuture<>();
      all.get(i).channel.close().addListener(x -> cf.complete(null));
      closes[i] = cf;
    }
    CompletableFuture.allOf(closes).whenComplete((v, e) -> p.terminated.complete(null));
    return p.terminated;
  }

  // Guarded by the pool.
  static <Req, Rep> List<PoolWaiter<Req, Rep>> takeWaiters(ConnectionPool<Req, Rep> p) {
    List<PoolWaiter<Req, Rep>> all = new ArrayList<>(p.waiters);
    p.waiters.clear();
    return all;
  }

  static <Req, Rep> void failWaiters(ConnectionPool<Req, Rep> p,
      List<PoolWaiter<Req, Rep>> failed, String what) {
    for (PoolWaiter<Req, Rep> w : failed) {
      w.fail(new PoolClosedException(what, p.address, w.attempt, null));
    }
  }
}

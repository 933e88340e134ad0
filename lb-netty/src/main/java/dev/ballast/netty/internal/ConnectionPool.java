package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.error.AcquireTimeoutException;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.ConnectionClosedException;
import dev.ballast.netty.error.PoolClosedException;
import dev.ballast.netty.error.PoolOverflowException;
import dev.ballast.netty.pool.PoolConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

/**
 * The connections to one endpoint. An acquire takes a permit on the open connection with the
 * fewest requests in flight below the per-connection cap (of those, one on the caller's event
 * loop if any: {@link LoopSpread}); else it opens a connection (up to the maximum) and waits in
 * a bounded queue ({@link PoolOverflowException} when full, {@link AcquireTimeoutException}
 * when the wait is too long). A release returns the permit; a
 * connection that broke, was abandoned mid-request or outlived its (jittered) lifetime is closed
 * once its last request ends. A periodic task closes connections idle past the idle timeout
 * (keeping the minimum) and opens the minimum. Thread-safe: one lock, held only for bookkeeping;
 * futures complete and channels close outside it. One per endpoint of a {@link BallastClient};
 * engine only (its counters reach users through {@link BallastClient#stats()}).
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
final class ConnectionPool<Req, Rep> {

  enum State { OPEN, DRAINING, CLOSED }

  private final Endpoint endpoint;
  final String address;
  final PoolConfig config;
  private final int cap;
  private final Connector<Req, Rep> connector;
  final Ticker ticker;
  private final EventLoopGroup group;
  private final LoopSpread loops;

  final ArrayList<PooledConnection<Req, Rep>> connections = new ArrayList<>();
  final ArrayDeque<PoolWaiter<Req, Rep>> waiters = new ArrayDeque<>();
  final CompletableFuture<Void> terminated = new CompletableFuture<>();
  int connecting;
  private int connectionCap; // the last opened connection's cap (HTTP/2: the server's)
  int inFlight;
  State state = State.OPEN;
  ScheduledFuture<?> reaper;
  private volatile Throwable lastConnectFailure;

  ConnectionPool(Endpoint endpoint, PoolConfig config, Protocol<Req, Rep> protocol,
      LoopSpread loops, Ticker ticker, RandomGenerator random) {
    this.endpoint = endpoint;
    this.address = endpoint.address();
    this.config = config;
    this.cap = protocol.maxInFlightPerConnection();
    this.connectionCap = cap;
    this.group = loops.group();
    this.loops = loops;
    this.ticker = ticker;
    this.connector = new Connector<>(endpoint, config, protocol, loops, ticker, random);
    long period = Math.max(100, Math.min(1000, config.idleTimeout().toMillis() / 4));
    this.reaper = this.group.next().scheduleWithFixedDelay(
        this::maintain, period, period, TimeUnit.MILLISECONDS);
    if (config.minConnections() > 0) {
      group.next().execute(this::maintain);
    }
  }

  /** Returns the endpoint this pool connects to. */
  public Endpoint endpoint() {
    return endpoint;
  }

  /** Returns the connections open now (busy or idle). */
  public synchronized int connections() {
    return connections.size();
  }

  /** Returns the open connections with no request in flight. */
  public synchronized int idleConnections() {
    int n = 0;
    for (PooledConnection<Req, Rep> c : connections) {
      if (c.inFlight == 0) {
        n++;
      }
    }
    return n;
  }

  /** Returns the connections being opened. */
  public synchronized int connecting() {
    return connecting;
  }

  /** Returns the permits taken and not yet released: requests in flight on this pool. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** Returns the acquires waiting for a connection. */
  public synchronized int pendingAcquires() {
    return waiters.size();
  }

  /** Returns whether the pool was closed or is draining. */
  public synchronized boolean isClosed() {
    return state != State.OPEN;
  }

  /**
   * Takes a permit on a connection: returns a free one at once, without allocating (the
   * callback is then not called); else returns {@code null} and calls back once with a
   * connection or a failure: {@link PoolClosedException} or {@link PoolOverflowException} at
   * once; later {@link AcquireTimeoutException} (at the deadline, or the acquire timeout if
   * sooner), {@link ConnectFailedException}, or {@link PoolClosedException} if the pool closes.
   * The callback may run on the caller's thread, even before this returns; what it throws is
   * dropped.
   *
   * @param deadlineNanos when to give up, on the pool's ticker
   */
  PooledConnection<Req, Rep> acquireBefore(long deadlineNanos, int attempt,
      BiConsumer<? super PooledConnection<Req, Rep>, ? super Throwable> later) {
    return acquireBefore(deadlineNanos, attempt, later, ticker.nanoTime());
  }

  /** As {@link #acquireBefore(long, int, BiConsumer)}, at {@code now} on the pool's ticker. */
  PooledConnection<Req, Rep> acquireBefore(long deadlineNanos, int attempt,
      BiConsumer<? super PooledConnection<Req, Rep>, ? super Throwable> later, long now) {
    PoolWaiter<Req, Rep> w = null;
    boolean open = false;
    RuntimeException failed = null;
    int home = loops.callerLoop();
    synchronized (this) {
      if (state != State.OPEN) {
        failed = new PoolClosedException("connection pool closed", address, attempt, null);
      } else {
        PooledConnection<Req, Rep> best = takeFree(now, home);
        if (best != null) {
          return best;
        }
        if (waiters.size() >= config.maxPendingAcquires()) {
          failed = new PoolOverflowException(
              "connection pool full: " + connections.size() + " connections busy and "
                  + waiters.size() + " acquires waiting (max " + config.maxPendingAcquires()
                  + ")", address, attempt, null);
        } else {
          w = new PoolWaiter<>(this, attempt,
              Math.max(0, Math.min(deadlineNanos - now, config.acquireTimeout().toNanos())));
          try {
            w.timer = group.next().schedule(w, w.timeoutNanos, TimeUnit.NANOSECONDS);
            waiters.add(w);
            if (shouldOpen()) {
              connecting++;
              open = true;
            }
          } catch (RejectedExecutionException e) { // the loops are shut down: nothing would end it
            failed = new PoolClosedException("event loops shut down", address, attempt, e);
          }
        }
      }
    }
    if (failed != null) {
      CompletableFuture.<PooledConnection<Req, Rep>>failedFuture(failed).whenComplete(later);
      return null;
    }
    w.future.whenComplete(later);
    if (open) {
      connect();
    }
    return null;
  }

  /** An acquire's wait ended: returns whether it was still waiting (then it is not any more). */
  synchronized boolean stopWaiting(PoolWaiter<Req, Rep> w) {
    return waiters.remove(w);
  }

  String address() {
    return address;
  }

  // Guarded by this: the open connection with the fewest requests below the cap, of those
  // one on the caller's loop (home) if any, so that the call need not be handed to another.
  private PooledConnection<Req, Rep> takeFree(long now, int home) {
    PooledConnection<Req, Rep> best = null;
    for (int i = 0, n = connections.size(); i < n; i++) {
      PooledConnection<Req, Rep> c = connections.get(i);
      if (c.inFlight < c.cap(cap) && c.usable(now) && (best == null
          || c.inFlight < best.inFlight
          || c.inFlight == best.inFlight && c.loop == home && best.loop != home)) {
        best = c;
        if (c.inFlight == 0 && (home == LoopSpread.NONE || c.loop == home)) {
          break;
        }
      }
    }
    if (best != null) {
      best.inFlight++;
      inFlight++;
      loops.add(best.loop, 1);
    }
    return best;
  }

  // Guarded by this. A connection that is opening will take as many as the last one opened.
  private boolean shouldOpen() {
    return connections.size() + connecting < config.maxConnections()
        && waiters.size() > (long) connecting * connectionCap;
  }

  /**
   * Returns a permit. {@code reusable} is false when the request broke or abandoned the
   * connection; the connection is then closed once its last request ends.
   */
  void release(PooledConnection<Req, Rep> c, boolean reusable) {
    release(c, reusable, ticker.nanoTime());
  }

  /** As {@link #release(PooledConnection, boolean)}, at {@code now} on the pool's ticker. */
  void release(PooledConnection<Req, Rep> c, boolean reusable, long now) {
    PoolWaiter<Req, Rep> next = null;
    boolean close = false;
    boolean open = false;
    boolean done = false;
    synchronized (this) {
      c.inFlight--;
      inFlight--;
      c.lastUsed = now;
      if (!reusable || !c.usable(now) || state != State.OPEN) {
        c.retired = true;
      }
      if (c.retired) {
        if (c.inFlight == 0) {
          connections.remove(c);
          close = true;
        }
        if (!waiters.isEmpty() && state == State.OPEN && shouldOpen()) {
          connecting++;
          open = true;
        }
      } else if (!waiters.isEmpty()) {
        next = waiters.poll();
        c.inFlight++;
        inFlight++;
      }
      done = state == State.DRAINING && inFlight == 0;
    }
    if (next == null) { // else the permit went on to a waiter on the same connection
      loops.add(c.loop, -1);
    }
    if (close) {
      c.channel.close();
    }
    if (next != null) {
      handOver(next, c);
    }
    if (open) {
      connect();
    }
    if (done) {
      close();
    }
  }

  private void handOver(PoolWaiter<Req, Rep> w, PooledConnection<Req, Rep> c) {
    if (!w.complete(c)) {
      release(c, true);
    }
  }

  void connect() {
    try {
      connector.open(this::onConnect);
    } catch (Throwable t) { // open reports to onConnect; this is the belt to its braces
      onConnect(null, t);
    }
  }

  /** Where the latest connection being opened got to (TCP connect, TLS handshake...). */
  String openingStage() {
    return connector.stage();
  }

  /** Why the latest connection failed to open, or null if it opened. */
  Throwable lastConnectFailure() {
    return lastConnectFailure;
  }

  private void onConnect(PooledConnection<Req, Rep> opened, Throwable failure) {
    PooledConnection<Req, Rep> c = opened;
    Throwable cause = failure;
    if (c != null && !c.channel.isActive()) { // closed since the hand-over: no connection
      c.channel.close();
      c = null;
      cause = new java.net.ConnectException("connection closed by the server as soon as it "
          + "was opened");
    }
    lastConnectFailure = cause;
    List<PoolWaiter<Req, Rep>> served = new ArrayList<>();
    List<PoolWaiter<Req, Rep>> failed = null;
    boolean closeIt = false;
    boolean open = false;
    synchronized (this) {
      connecting--;
      if (c != null) {
        if (state != State.OPEN) {
          closeIt = true;
        } else {
          connections.add(c);
          connectionCap = c.cap(cap);
          while (!waiters.isEmpty() && c.inFlight < connectionCap) {
            served.add(waiters.poll());
            c.inFlight++;
            inFlight++;
          }
          if (!waiters.isEmpty() && shouldOpen()) { // the server allows fewer than thought
            connecting++;
            open = true;
          }
        }
      } else if (connecting == 0 && connections.isEmpty()) {
        failed = PoolUpkeep.takeWaiters(this);
      }
    }
    if (closeIt) {
      c.channel.close();
      return;
    }
    if (c != null) { // after it is listed: if it closed meanwhile, this runs at once
      loops.add(c.loop, served.size());
      PooledConnection<Req, Rep> added = c;
      c.channel.closeFuture().addListener(x -> onClosed(added));
    }
    for (PoolWaiter<Req, Rep> w : served) {
      handOver(w, c);
    }
    if (open) {
      connect();
    }
    if (failed != null) {
      for (PoolWaiter<Req, Rep> w : failed) {
        w.fail(Failures.connect(cause, address, w.attempt));
      }
    }
  }

  private void onClosed(PooledConnection<Req, Rep> c) {
    boolean open = false;
    synchronized (this) {
      c.retired = true;
      connections.remove(c);
      if (state == State.OPEN && !waiters.isEmpty() && shouldOpen()) {
        connecting++;
        open = true;
      }
    }
    if (open) {
      connect();
    }
  }

  /**
   * Closes idle and expired connections (while draining, every idle one), and opens up to the
   * minimum ({@link PoolUpkeep#maintain}).
   */
  void maintain() {
    PoolUpkeep.maintain(this);
  }

  /**
   * Stops new acquires and closes connections as their requests end; returns a future completed
   * when the pool is closed ({@link PoolUpkeep#drain}).
   */
  CompletableFuture<Void> drain() {
    return PoolUpkeep.drain(this);
  }

  /** Closes the pool now; returns a future completed when every channel has closed. */
  CompletableFuture<Void> close() {
    return PoolUpkeep.close(this);
  }

  @Override
  public String toString() {
    return "ConnectionPool{" + address + "}";
  }
}

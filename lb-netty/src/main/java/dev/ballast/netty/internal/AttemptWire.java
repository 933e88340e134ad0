package dev.ballast.netty.internal;

import java.util.function.BiConsumer;

/**
 * An attempt's wire part, the side of the connection: the pool's acquire callback and the
 * connection's {@link Exchange}, from the request's hand-over to its answer, a failure, or its
 * being given up, after which the connection's permit goes back. A request whose caller gave up
 * may stay on its wire for its late answer (then an entry of the late-answer wheel). {@link
 * Attempt} adds the caller's part; both share this object's lock.
 */
abstract class AttemptWire<Req, Rep> extends DeadlineWheel.Entry
    implements Exchange<Rep>, BiConsumer<PooledConnection<Req, Rep>, Throwable> {

  final Chain<Req, Rep> chain;
  final EndpointClient<Req, Rep> ep;
  final int number;
  final long start;
  private final long callDeadline;
  // When the request got its connection: the balancer's sample starts there, so that opening a
  // connection (TCP, TLS, HTTP/2 settings) is not counted as the server's latency.
  volatile long sent;
  volatile boolean written;
  // written under this lock before the caller's part ends, read by the feedback after it
  volatile boolean awaiting;
  /** The load report the server sent with its answer, in a frame of its own, or null. */
  volatile byte[] loadReport;
  /** The request the pool's module sends, and when it started on its way there. */
  Req toSend;
  long sendAt;
  // guarded by this
  PooledConnection<Req, Rep> conn;
  long token;
  boolean wireDone;
  boolean callerDone;

  AttemptWire(Chain<Req, Rep> chain, EndpointClient<Req, Rep> ep, int number, long start,
      long callDeadline, Req toSend) {
    super(0);
    this.chain = chain;
    this.ep = ep;
    this.number = number;
    this.start = start;
    this.callDeadline = callDeadline;
    this.sent = start;
    this.toSend = toSend;
    this.sendAt = start;
  }

  /** The wire part ended at {@code now} with this outcome, for the caller. */
  abstract void wireEnded(Rep rep, Throwable err, long now);

  /** The answer to a request whose caller gave up came, or its wait ended (both null). */
  abstract void lateAnswer(long latencyNanos, Rep rep, Throwable err);

  /** Whether the attempt still waits for the pool to give it a connection. */
  synchronized boolean awaitsConnection() {
    return conn == null && !wireDone && !callerDone;
  }

  boolean awaitsLateAnswer() {
    return awaiting;
  }

  /** The pool's module: asks the endpoint's pool for a connection and sends on it. */
  void send() {
    // toSend: no lock; accept reads it on this thread, or after the pool's hand-over (under the
    // pool's lock); an attempt abandoned meanwhile gives the connection back in accept.
    long now = sendAt;
    PooledConnection<Req, Rep> free = ep.pool.acquireBefore(callDeadline, number, this, now);
    if (free != null) {
      handOver(free, now);
    }
  }

  /** A module above the pool failed the attempt before it was sent (an added module threw). */
  void failUnsent(Throwable cause) {
    synchronized (this) {
      if (wireDone) {
        return;
      }
      wireDone = true;
    }
    wireEnded(null, cause, chain.ticker.nanoTime());
  }

  /** The pool's answer to the acquire. */
  @Override
  public void accept(PooledConnection<Req, Rep> c, Throwable error) {
    if (error != null) {
      failUnsent(Failures.of(error, ep.address, number, false));
      return;
    }
    handOver(c, chain.ticker.nanoTime()); // after a wait: the request starts now
  }

  /** Sends the request on the connection at {@code now}, unless the attempt ended meanwhile. */
  private void handOver(PooledConnection<Req, Rep> c, long now) {
    synchronized (this) {
      if (!callerDone && !wireDone) {
        conn = c;
        sent = now;
        token = c.dispatcher.send(toSend, this);
        return;
      }
    }
    ep.pool.release(c, true);
  }

  @Override
  public void onLoadReport(byte[] report) {
    loadReport = report;
  }

  @Override
  public void onWritten() {
    written = true;
  }

  @Override
  public void onResponse(Rep rep) {
    if (!written) { // once: a dispatcher need not call onWritten first
      written = true;
    }
    wireEnd(rep, null);
  }

  @Override
  public void onFailure(Throwable cause) {
    wireEnd(null, cause);
  }

  private void wireEnd(Rep rep, Throwable cause) {
    PooledConnection<Req, Rep> c = endWire();
    if (c == null) {
      return;
    }
    boolean late = awaiting;
    long now = chain.ticker.nanoTime(); // one reading for the pool and the latency
    // The connection stays unless it broke (an error answer or a refused request leave it).
    ep.pool.release(c, cause == null || !c.dispatcher.isPoisoned(), now);
    if (late) {
      chain.deadlines.lateAnswerHeard(this);
      lateAnswer(now - sent, rep,
          cause == null ? null : Failures.of(cause, ep.address, number, true));
      return;
    }
    wireEnded(rep, cause == null ? null : Failures.of(cause, ep.address, number, written), now);
  }

  /** Ends the wire part, once: returns its connection, or null if it had ended already. */
  private synchronized PooledConnection<Req, Rep> endWire() {
    if (wireDone) {
      return null;
    }
    wireDone = true;
    return conn;
  }

  /**
   * Guarded by this. Leaves the wire to await its late answer, or gives it up; returns the
   * connection to release, if any.
   */
  PooledConnection<Req, Rep> detachWire() {
    if (conn == null || wireDone) {
      return null; // not sent (a connection that comes later is released), or already over
    }
    if (written && chain.lateAnswerWaitNanos > 0 && !chain.closed.get()
        && conn.dispatcher.keepsLateAnswers()) {
      awaiting = true;
      deadline = chain.ticker.nanoTime() + chain.lateAnswerWaitNanos;
      chain.deadlines.awaitLateAnswer(this);
      return null;
    }
    wireDone = true;
    conn.dispatcher.cancel(token);
    return conn;
  }

  /**
   * No late answer within the wait, or the client closes: the request ends now. Its connection,
   * which a stalled request may mean is stuck, takes no new requests and closes once its last
   * one ends.
   */
  void lateAnswerGivenUp() {
    PooledConnection<Req, Rep> c = endWire();
    if (c == null) {
      return;
    }
    c.dispatcher.cancel(token);
    ep.pool.release(c, false);
    lateAnswer(chain.ticker.nanoTime() - sent, null, null);
  }
}

package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.netty.AttemptContext;
import dev.ballast.netty.CallContext;
import dev.ballast.netty.Classification;
import dev.ballast.netty.error.AttemptCancelledException;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.RequestRefusedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One attempt of a call on one picked node: the {@link AttemptContext}, and the caller's part of
 * the attempt, on top of its wire part ({@link AttemptWire}).
 *
 * <p>It is the attempt level's future: the attempt-level modules pass it down ({@link
 * AttemptLayer#pass}), and its outcome goes back up through them ({@link #up}) to the call.
 *
 * <p>An attempt has two parts that end separately. The <em>wire</em> part is the request on its
 * connection: it ends with the answer, a failure, or by being given up, and then returns the
 * connection's permit. The <em>caller</em> part ends when the outcome leaves the wire (or the
 * attempt filters, if any) or when the call ends without it (its deadline, a close, or another
 * attempt answered). A request already written on a connection that keeps late answers
 * then stays on its wire until the answer comes, so that the balancer hears its true latency: a
 * deadline frees the caller, not the server.
 */
final class Attempt<Req, Rep> extends AttemptWire<Req, Rep> implements AttemptContext<Req> {

  final Call<Req, Rep> call;
  final Node<EndpointClient<Req, Rep>> node;
  final boolean hedge;
  /** The call's attempt started before this one, or null; set once by {@link Call#link}. */
  Attempt<Req, Rep> previous;
  // The caller's outcome, set once before any feedback.
  private volatile Classification classification;
  volatile Rep response;
  volatile Throwable failure;
  /** The deepest module the attempt entered: its outcome comes up from there. */
  AttemptLayer<Req, Rep> reached;
  /** The module holding the outcome on its way up (the attempt filters, while they run). */
  volatile AttemptLayer<Req, Rep> heldBy;
  private volatile boolean callEnded;
  private volatile Throwable endReason;
  private volatile boolean lost;
  private volatile boolean counts;
  private volatile long latency = -1;
  // guarded by this
  private Throwable abandoned;
  private CompletableFuture<Rep> wire;

  Attempt(Call<Req, Rep> call, Node<EndpointClient<Req, Rep>> node, int number, boolean hedge,
      long start) {
    super(call.chain, node.value(), number, start, call.deadline, call.sent);
    this.call = call;
    this.node = node;
    this.hedge = hedge;
  }

  @Override
  public CallContext<Req> call() {
    return call;
  }

  @Override
  public int number() {
    return number;
  }

  @Override
  public boolean isHedge() {
    return hedge;
  }

  @Override
  public Endpoint endpoint() {
    return node.endpoint();
  }

  /**
   * Whether the node's policy reads load reports: the framed protocol asks the server for one
   * only then, and the answer's report is parsed only then. lb-netty asks a policy nothing else.
   */
  @Override
  public boolean wantsLoadReport() {
    return node.readsReports();
  }

  @Override
  public Classification classification() {
    return classification;
  }

  /** Sets the caller's outcome; the feedback modules read it next. */
  void outcome(Classification c, Rep rep, Throwable err) {
    response = rep;
    failure = err;
    classification = c;
  }

  /**
   * Whether the balancer sees this attempt as sent (else it cancels the pick): not when the
   * server refused it unprocessed.
   */
  boolean reachedWire() {
    return written && !(failure instanceof RequestRefusedException);
  }

  /** Whether outlier detection and the endpoint's counters count this attempt. */
  boolean countsForEndpoint() {
    return counts;
  }

  boolean isLost() {
    return lost;
  }

  /** Whether the call ended without this attempt (its outcome goes up for the feedback only). */
  boolean isAbandoned() {
    return callEnded;
  }

  /** Why the call ended without this attempt: null when another attempt answered first. */
  Throwable abandonReason() {
    return endReason;
  }

  /** The latency the caller saw, in nanoseconds. */
  long latencyNanos() {
    return latency;
  }

  /**
   * The latency the balancer hears, in nanoseconds: the caller's less the wait for a connection
   * (a connection being opened for the request, or the pool's queue).
   */
  long sampleNanos() {
    return latency - (sent - start);
  }

  /** The attempt filters' {@code next}: sends once, and returns the wire's future. */
  CompletableFuture<Rep> sendOnce(Req req, AttemptLayer<Req, Rep> filters) {
    Throwable gone;
    synchronized (this) {
      if (wire != null) {
        return CompletableFuture.failedFuture(new IllegalStateException(
            "next called twice for attempt " + number + " (expected: at most once)"));
      }
      wire = new CompletableFuture<>();
      gone = abandoned != null || !callerDone ? abandoned
          : new IllegalStateException("attempt " + number + " already ended");
    }
    if (gone != null) {
      wire.completeExceptionally(gone);
    } else {
      toSend = req;
      sendAt = chain.ticker.nanoTime();
      filters.pass(this);
    }
    return wire;
  }

  // The wire part ended: the outcome goes up from the deepest module entered. Without attempt
  // filters the caller's part ends here too; with them, when their future completes.
  @Override
  void wireEnded(Rep rep, Throwable err, long now) {
    latency = now - start;
    if (!chain.attemptFilters) {
      if (!endCaller(rep, err)) {
        return;
      }
    } else {
      synchronized (this) {
        if (callerDone) {
          return;
        }
      }
      response = rep;
      failure = err;
    }
    up(reached);
  }

  /**
   * The outcome goes up from module {@code from}: past the first attempt-level module, the call
   * hears it (unless the call ended without this attempt).
   */
  void up(AttemptLayer<Req, Rep> from) {
    for (AttemptLayer<Req, Rep> m = from; m != null; m = m.above) {
      if (!m.leave(this)) {
        heldBy = m;
        return;
      }
    }
    int live = call.attemptEnded();
    if (!callEnded) {
      if (classification == null) { // failed above the classifier (an added module threw)
        classification = Classification.FAILURE;
      }
      call.answered(this, live);
    }
  }

  synchronized CompletableFuture<Rep> wire() {
    return wire;
  }

  /**
   * The caller's part ends with this outcome (from the wire, or from the attempt filters);
   * returns false if it had ended already.
   */
  boolean endCaller(Rep rep, Throwable err) {
    PooledConnection<Req, Rep> release;
    synchronized (this) {
      if (callerDone) {
        return false;
      }
      callerDone = true;
      // a refusal (a GOAWAY, REFUSED_STREAM) is no failure of the endpoint
      counts = (conn != null && !(err instanceof RequestRefusedException))
          || err instanceof ConnectFailedException;
      release = detachWire(); // a filter answered before the wire did
      if (latency < 0) {
        latency = chain.ticker.nanoTime() - start;
      }
    }
    if (release != null) {
      ep.pool.release(release, !release.dispatcher.isPoisoned());
    }
    if (err instanceof CompletionException && err.getCause() != null) {
      err = err.getCause();
    }
    response = rep;
    failure = err;
    return true;
  }

  /**
   * The call ended without this attempt: as cancelled when {@code reason} is null (another
   * attempt answered first), else failing with {@code reason} (deadline, close). A written
   * request on a connection that keeps late answers stays there, awaiting its answer.
   */
  void abandon(Throwable reason) {
    PooledConnection<Req, Rep> release;
    synchronized (this) {
      if (callerDone) {
        return;
      }
      callerDone = true;
      lost = reason == null;
      counts = written;
      latency = chain.ticker.nanoTime() - start;
      // only attempt filters see why (a cancelled attempt costs no exception without them)
      abandoned = !lost ? reason : !chain.attemptFilters ? null
          : new AttemptCancelledException(ep.address, number, written);
      release = detachWire();
    }
    if (release != null) {
      ep.pool.release(release, !release.dispatcher.isPoisoned());
    }
    response = null;
    failure = null;
    endReason = reason;
    callEnded = true;
    AttemptLayer<Req, Rep> held = heldBy;
    up(held != null ? held : reached);
  }

  /** Why the attempt filters' {@code next} fails once the call ended without the attempt. */
  synchronized Throwable abandonedFor() {
    return abandoned;
  }

  @Override
  void lateAnswer(long latencyNanos, Rep rep, Throwable err) {
    chain.balancer.lateAnswer(this, latencyNanos, rep, err);
  }

  @Override
  public String toString() {
    return "attempt " + number + " on " + ep.address;
  }
}

package dev.ballast.netty.internal;

import dev.ballast.netty.CallContext;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.Classification;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.DeadlineExceededException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * One call: the {@link CallContext} every module sees, its entry in the deadline wheel, and its
 * attempts (each links to the one started before it, so the latest reaches them all). It is the
 * call level's future: the call-level modules pass it down, and its outcome goes back up through
 * them ({@link CallLayer#leave}) to the caller's future.
 *
 * <p>A call ends in two steps. It is <em>decided</em> once: by a successful attempt, by the last
 * failed attempt that is not retried, by its deadline or by the client closing; the other
 * attempts still running are then abandoned. It is <em>delivered</em> once: the caller's future
 * completes (on the completion executor when one is configured). Without call filters, delivery
 * follows the decision at once; with them, the filters' own future is delivered, or the deadline
 * is, whichever comes first.
 */
final class Call<Req, Rep> extends DeadlineWheel.Entry implements CallContext<Req> {

  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<Call> ATTEMPTS =
      AtomicIntegerFieldUpdater.newUpdater(Call.class, "attempts");
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<Call> LIVE =
      AtomicIntegerFieldUpdater.newUpdater(Call.class, "live");
  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<Call, Attempt> LAST =
      AtomicReferenceFieldUpdater.newUpdater(Call.class, Attempt.class, "last");
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<Call> STATE =
      AtomicIntegerFieldUpdater.newUpdater(Call.class, "state");
  private static final int DECIDED = 1;
  private static final int DELIVERED = 2;

  final Chain<Req, Rep> chain;
  final Req request;
  final CallOptions options;
  final boolean idempotent;
  final Duration timeout;
  final long start;
  /** The caller's future. */
  final CompletableFuture<Rep> future = new CompletableFuture<>();
  /** With call filters, what the modules below complete for them; else null. */
  CompletableFuture<Rep> core;
  /** With call filters, the module the outcome goes on up from once they answered. */
  CallLayer<Req, Rep> resumeAt;
  // the outcome on its way up: the decision, then what the call filters made of it
  private volatile Rep outRep;
  private volatile Throwable outErr;
  /** The request the attempts send: the caller's, or what the call filters passed down. */
  volatile Req sent;
  /** Whether the call filters called their {@code next}; guarded by this. */
  boolean passed;
  /** The latest attempt. */
  volatile Attempt<Req, Rep> last;
  /** The hedge timer, when one is armed. */
  volatile HedgingModule.Timer hedgeTimer;
  volatile int attempts;
  volatile int hedges;
  /** Attempts refused unprocessed and retried outside the policy's count. */
  volatile int refusals;
  private volatile int live;
  private volatile int state;
  private volatile boolean succeeded;
  private volatile Attempt<Req, Rep> decidedBy;
  private volatile Object[] attributes;

  Call(Chain<Req, Rep> chain, Req request, CallOptions options, boolean idempotent,
      Duration timeout, long start, long timeoutNanos) {
    super(start + timeoutNanos);
    this.chain = chain;
    this.request = request;
    this.sent = request;
    this.options = options;
    this.idempotent = idempotent;
    this.timeout = timeout;
    this.start = start;
  }

  @Override
  public Req request() {
    return request;
  }

  @Override
  public CallOptions options() {
    return options;
  }

  @Override
  public boolean isIdempotent() {
    return idempotent;
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public long deadlineNanos() {
    return deadline;
  }

  @Override
  public long remainingNanos() {
    return deadline - chain.ticker.nanoTime();
  }

  @Override
  public int attempts() {
    return attempts;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T attribute(CallOptions.Key<T> key) {
    Object[] a = attributes;
    int i = a == null ? -1 : indexOf(a, key);
    return i >= 0 ? (T) a[i + 1] : options.attribute(key);
  }

  @Override
  public synchronized <T> void setAttribute(CallOptions.Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Object[] a = attributes == null ? new Object[0] : attributes;
    int i = indexOf(a, key);
    if (i < 0) {
      i = a.length;
      a = Arrays.copyOf(a, a.length + 2);
      a[i] = key;
    } else {
      a = a.clone();
    }
    a[i + 1] = value;
    attributes = a;
  }

  /** Numbers a new attempt; returns its number. */
  int nextAttempt(boolean hedge) {
    if (hedge) {
      hedges++; // only the hedge timer's one attempt writes it
    } else if (attempts == 0) {
      attempts = 1; // no retry or hedge can start before the first attempt
      return 1;
    }
    return ATTEMPTS.incrementAndGet(this);
  }

  /**
   * Links a new attempt as the latest (a retry and a hedge may link at once); it runs for the
   * caller until {@link #attemptEnded}.
   */
  void link(Attempt<Req, Rep> a) {
    if (a.number == 1) {
      live = 1; // nothing else starts, links or ends an attempt before the first is linked
      last = a;
      return;
    }
    LIVE.incrementAndGet(this);
    Attempt<Req, Rep> prev;
    do {
      prev = last;
      a.previous = prev;
    } while (!LAST.compareAndSet(this, prev, a));
  }

  /** An attempt's part for the caller ended; returns how many still run. */
  int attemptEnded() {
    return LIVE.decrementAndGet(this);
  }

  /** Returns how many attempts run for the caller now. */
  int live() {
    return live;
  }

  boolean isDecided() {
    return (state & DECIDED) != 0;
  }

  boolean succeeded() {
    return succeeded;
  }

  /** The attempt that decided the call, or null (its deadline, a close, the call filters). */
  Attempt<Req, Rep> decidedBy() {
    return decidedBy;
  }

  /**
   * Decides the call's outcome, once: {@code by} is the attempt that decided it (null for the
   * deadline or a close), and every other attempt still running is abandoned: as cancelled when
   * {@code othersFailure} is null (another attempt answered), else failing with it. The outcome
   * then goes up the call-level modules, from the last one.
   */
  boolean decide(Rep rep, Throwable err, Attempt<Req, Rep> by, Throwable othersFailure) {
    // without call filters the decision is the delivery: one state change for both
    if (!set(core == null ? DECIDED | DELIVERED : DECIDED)) {
      return false;
    }
    Classification c = by == null ? null : by.classification();
    succeeded = by != null ? c != null && c.isSuccess() : err == null;
    decidedBy = by;
    for (Attempt<Req, Rep> a = last; a != null; a = a.previous) {
      if (a != by) {
        a.abandon(othersFailure);
      }
    }
    outRep = rep;
    outErr = err;
    up(chain.lastCall);
    return true;
  }

  /** An attempt's outcome came up the attempt-level modules; {@code live} attempts still run. */
  void answered(Attempt<Req, Rep> a, int live) {
    for (CallLayer<Req, Rep> m = chain.lastCall; m != null; m = m.above) {
      if (!m.answered(a, live)) {
        return;
      }
    }
    Classification c = a.classification();
    if (c != null && c.isSuccess()) {
      decide(a.response, null, a, null);
    } else if (live == 0) {
      decide(a.response, a.failure, a, null);
    }
  }

  /** The call filters' outcome (or the deadline's) for the caller. */
  Rep outcome() {
    return outRep;
  }

  Throwable failure() {
    return outErr;
  }

  // The outcome goes up from module m; past the first, the caller's future completes.
  private void up(CallLayer<Req, Rep> from) {
    for (CallLayer<Req, Rep> m = from; m != null; m = m.above) {
      if (!m.leave(this)) {
        return;
      }
    }
    Rep rep = outRep;
    Throwable err = outErr;
    Executor executor = chain.completionExecutor;
    if (executor == null) {
      complete(rep, err);
      return;
    }
    try {
      executor.execute(() -> complete(rep, err));
    } catch (RuntimeException | Error e) {
      // Rejected, or broken (a pool that cannot start a thread throws OutOfMemoryError): the
      // call has left the deadline wheel, so it ends here or never.
      complete(rep, err);
    }
  }

  /** Ends the call with {@code t} now (deadline, close), whatever its filters do. */
  void end(BallastException t) {
    decide(null, t, null, t);
    deliver(null, t);
  }

  /** The deadline passed (called by the wheel's sweep). */
  void expire() {
    Attempt<Req, Rep> a = last;
    end(new DeadlineExceededException(timeout, a == null ? null : a.ep.address, attempts,
        a != null && a.written, a != null && a.awaitsConnection()
            ? " while waiting for a connection" + PoolWaiter.poolState(a.ep.pool) : ""));
  }

  /** Completes the caller's future, once, with the call filters' outcome (or the deadline's). */
  void deliver(Rep rep, Throwable err) {
    if (set(DELIVERED)) {
      outRep = rep;
      outErr = err;
      up(resumeAt);
    }
  }

  /** Whether the caller's future completes with a success. */
  boolean deliveredSuccess() {
    return outErr == null && succeeded;
  }

  private void complete(Rep rep, Throwable err) {
    if (err != null) {
      future.completeExceptionally(err);
    } else {
      future.complete(rep);
    }
  }

  /** Sets the bits, unless one of them is set already. */
  private boolean set(int bits) {
    for (;;) {
      int s = state;
      if ((s & bits) != 0) {
        return false;
      }
      if (STATE.compareAndSet(this, s, s | bits)) {
        return true;
      }
    }
  }

  private static int indexOf(Object[] pairs, CallOptions.Key<?> key) {
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i] == key) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    return "call of " + request + " (" + attempts + " attempts)";
  }
}

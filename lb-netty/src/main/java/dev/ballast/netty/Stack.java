package dev.ballast.netty;

import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.health.internal.ActiveChecks;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.internal.Protocol;
import dev.ballast.netty.internal.SplitMix;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client's modules, assembled in one order (this class is the one place it is written), and
 * the way a call goes through them:
 *
 * <pre>
 * call level:     call filters -> deadline -> retries -> hedging
 * attempt level:  pick (subset selection, balancer) -> attempt filters -> pool -> connection
 * each attempt's outcome, for the caller: the classifier first, then the feedback modules in
 *                 this order: balancer, outlier detection, metrics, endpoint source; then
 *                 retries and hedging decide whether the call goes on; a success, or the
 *                 last failure, decides it
 * </pre>
 *
 * <p>Every module sees the per-call context ({@link Call}) and the attempt's ({@link Attempt}).
 * The modules: {@link Deadlines}, {@link Retries}, {@link Hedges}, {@link Picker}, {@link
 * Endpoints} (pools and outlier detection's state), {@link Feedback}.
 */
final class Stack<Req, Rep> {

  final String name;
  final Ticker ticker;
  final EventLoopGroup group;
  final Protocol<Req, Rep> protocol;
  final Executor completionExecutor;
  final long lateAnswerWaitNanos;
  final ClientMetrics metrics;
  // the modules, in order
  final Filter<Req, Rep> callFilters;
  final Deadlines<Req, Rep> deadlines;
  final Retries<Req, Rep> retries;
  final Hedges<Req, Rep> hedges;
  final Picker<Req, Rep> picker;
  final AttemptFilter<Req, Rep> attemptFilters;
  final Endpoints<Req, Rep> endpoints;
  final ResponseClassifier<Req, Rep> classifier;
  private final Feedback.Balancer<Req, Rep> balancer = new Feedback.Balancer<>();
  private final Feedback<Req, Rep>[] feedback;

  private final Duration timeout;
  private final long timeoutNanos;
  private final Duration closeGrace;
  private final LongAdder calls = new LongAdder();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();

  Stack(Settings<Req, Rep, ?> b) {
    this.name = b.name;
    this.ticker = b.ticker;
    this.group = b.group;
    this.protocol = b.protocol.apply(b);
    this.completionExecutor = b.completionExecutor;
    this.lateAnswerWaitNanos = Durations.nanos(b.lateAnswerWait);
    this.timeout = b.timeout;
    this.timeoutNanos = Durations.nanos(b.timeout);
    this.closeGrace = b.closeGrace;
    this.metrics = b.meterRegistry != null
        ? MicrometerClientMetrics.create(b.meterRegistry, name) : ClientMetrics.NOOP;
    SplitMix random = new SplitMix(b.seed);
    this.callFilters = b.filters.stream().reduce(Filter::andThen).orElse(null);
    this.deadlines = new Deadlines<>(ticker);
    this.retries = new Retries<>(this, b.retry.build(), random);
    this.hedges = b.hedging == null ? null : new Hedges<>(this, b.hedging, ticker);
    Router<EndpointClient<Req, Rep>> router = router(b);
    this.picker = new Picker<>(router);
    this.attemptFilters = b.attemptFilters.stream().reduce(Stack::andThen).orElse(null);
    this.endpoints = new Endpoints<>(name, router, b.outlier, protocol, b.pool, group, ticker,
        random, metrics, closed, Endpoints.drainNanos(Durations.nanos(b.closeGrace),
            timeoutNanos, lateAnswerWaitNanos));
    this.classifier = b.classifier != null ? b.classifier : protocol.classifier();
    @SuppressWarnings({"unchecked", "rawtypes"})
    Feedback<Req, Rep>[] inOrder = new Feedback[] {balancer,
        new Feedback.Outliers<>(endpoints.detector),
        new Feedback.Metrics<>(name, Durations.nanos(b.slowThreshold)),
        new Feedback.Source<>(endpoints)};
    this.feedback = inOrder;
    endpoints.update(b.endpoints);
    // last: a constructor that throws leaves no sweep registered and no source started
    endpoints.startChecks(ActiveChecks.start(b.healthCheck, protocol, group,
        (int) Math.min(Integer.MAX_VALUE, b.pool.connectTimeout().toMillis()), ticker, random));
    deadlines.start(group);
    if (hedges != null) {
      hedges.start(group);
    }
    if (b.source != null) {
      endpoints.feed(b.source, timeoutNanos);
    }
  }

  private static <Req, Rep> Router<EndpointClient<Req, Rep>> router(
      Settings<Req, Rep, ?> b) {
    if (b.subsetSelectors == null) {
      return Router.of(b.balancerFactory.create(b.balancerConfig));
    }
    SubsetSelector.Builder<EndpointClient<Req, Rep>> sb =
        SubsetSelector.<EndpointClient<Req, Rep>>builder()
            .selectors(b.subsetSelectors)
            .fallbackPolicy(b.fallbackPolicy)
            .allowRedundantKeys(b.allowRedundantKeys)
            .balancerFactory(() -> b.balancerFactory.create(b.balancerConfig));
    if (b.defaultSubset != null) {
      sb.defaultSubset(b.defaultSubset);
    }
    return Router.of(sb.build());
  }

  private static <Req, Rep> AttemptFilter<Req, Rep> andThen(AttemptFilter<Req, Rep> first,
      AttemptFilter<Req, Rep> second) {
    return (req, ctx, next) -> first.apply(req, ctx, r -> second.apply(r, ctx, next));
  }

  boolean isClosed() {
    return closed.get();
  }

  // --- down: a call, then its attempts ---

  /** Starts a call; never throws (every failure goes into the returned future). */
  CompletableFuture<Rep> call(Req request, CallOptions options) {
    Call<Req, Rep> call = null;
    try {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(options, "options");
      if (closed.get() || group.isShuttingDown()) { // shut-down loops run no deadline either
        return CompletableFuture.failedFuture(new ClientClosedException("client " + name
            + (closed.get() ? " is closed" : ": its event loops are shut down"), null, 0, false));
      }
      Duration t = options.timeout() != null ? options.timeout() : timeout;
      long nanos = options.timeout() != null ? Durations.nanos(t) : timeoutNanos;
      call = new Call<>(this, request, options, t, ticker.nanoTime(), nanos);
      calls.increment();
      deadlines.add(call);
      if (closed.get()) {
        call.end(new ClientClosedException("client " + name + " is closed", null, 0, false));
        return call.future;
      }
      retries.callStarted(call.start);
      if (hedges != null) {
        hedges.callStarted(call.start);
      }
      if (callFilters == null) {
        call.sent = request;
        startAttempt(call, false);
      } else {
        filter(call);
      }
      return call.future;
    } catch (RuntimeException | Error e) { // user code (a filter, a balancer) threw
      if (call == null) {
        return CompletableFuture.failedFuture(e);
      }
      call.decide(null, e, null, null);
      call.deliver(null, e); // and it leaves the deadline wheel
      return call.future;
    }
  }

  private void filter(Call<Req, Rep> call) {
    call.core = new CompletableFuture<>();
    CompletableFuture<Rep> out;
    try {
      out = callFilters.apply(call.request, call, req -> {
        synchronized (call) {
          if (call.sent != null) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                "next called twice for one call (expected: at most once)"));
          }
          call.sent = Objects.requireNonNull(req, "request");
        }
        startAttempt(call, false);
        return call.core;
      });
      if (out == null) {
        out = CompletableFuture.failedFuture(new NullPointerException("a filter returned null"));
      }
    } catch (RuntimeException | Error e) {
      out = CompletableFuture.failedFuture(e);
    }
    out.whenComplete((rep, err) -> {
      Throwable t = err instanceof CompletionException && err.getCause() != null
          ? err.getCause() : err;
      call.decide(rep, t, null, null); // attempts still running are not needed any more
      call.deliver(rep, t);
    });
  }

  /** Picks a node and starts an attempt of the call on it, unless the call is decided. */
  void startAttempt(Call<Req, Rep> call, boolean hedge) {
    if (call.isDecided()) {
      return;
    }
    Node<EndpointClient<Req, Rep>> node;
    try {
      node = picker.pick(call, hedge);
    } catch (RuntimeException | Error e) { // NoAvailableEndpointException, mostly
      if (!hedge && call.attempts == 0 && endpoints.awaitFirst(() -> startWaited(call))) {
        return; // before the source's first endpoints: the call waits for them
      }
      if (!hedge && call.live() == 0) {
        // a retry found nothing to pick: the last attempt's outcome stands
        Attempt<Req, Rep> last = call.last;
        if (last != null) {
          call.decide(last.response, last.failure, last, null);
        } else {
          call.decide(null, e, null, null);
        }
      }
      return;
    }
    if (node == null || (hedge && !hedges.tryHedge())) {
      if (node != null) {
        node.cancel();
      }
      return;
    }
    int number = call.nextAttempt(hedge);
    // the first attempt of a call without filters starts as the call does: one clock reading
    long start = number == 1 && callFilters == null ? call.start : ticker.nanoTime();
    Attempt<Req, Rep> a = new Attempt<>(call, node, number, hedge, start);
    call.link(a);
    if (call.isDecided()) {
      a.abandon(null);
      return;
    }
    if (a.number == 1 && hedges != null) {
      hedges.firstAttemptStarted(call, a);
    }
    a.start(call.sent);
  }

  // A call that waited for the source's first endpoints: they came, or the wait ended.
  private void startWaited(Call<Req, Rep> call) {
    if (closed.get()) {
      call.end(new ClientClosedException("client " + name + " closed before its source gave "
          + "endpoints", null, 0, false));
    } else {
      startAttempt(call, false);
    }
  }

  // --- up: each attempt's outcome ---

  /** An attempt's outcome reached the stack: classify, feed back, then go on or decide. */
  void attemptEnded(Attempt<Req, Rep> a, Rep rep, Throwable err) {
    Classification c;
    try {
      c = Objects.requireNonNull(classifier.classify(a, rep, err), "classifier returned null");
    } catch (RuntimeException | Error e) {
      c = Classification.FAILURE;
      rep = null;
      err = e;
    }
    a.outcome(c, rep, err);
    for (Feedback<Req, Rep> f : feedback) {
      f.attemptEnded(a);
    }
    Call<Req, Rep> call = a.call;
    int live = call.attemptEnded();
    if (c.isSuccess()) {
      call.decide(rep, null, a, null);
    } else if (live == 0 && !call.isDecided()) {
      retries.attemptFailed(call, a, c);
    }
  }

  /** The call ended without the attempt: cancelled ({@code reason} null) or failed. */
  void attemptAbandoned(Attempt<Req, Rep> a, Throwable reason) {
    if (reason != null) {
      a.outcome(classifyQuietly(a, null, reason), null, reason);
    }
    for (Feedback<Req, Rep> f : feedback) {
      f.attemptEnded(a);
    }
    a.call.attemptEnded();
  }

  /** The answer to an abandoned request came, or its wait ended (both null). */
  void lateAnswer(Attempt<Req, Rep> a, long latencyNanos, Rep rep, Throwable err) {
    // A deadline's orphan fails (the caller gave up); a cancelled hedge loser is classified.
    boolean success = a.isLost() && (rep != null || err != null)
        && classifyQuietly(a, rep, err).isSuccess();
    balancer.lateAnswer(a, latencyNanos, success);
  }

  private Classification classifyQuietly(Attempt<Req, Rep> a, Rep rep, Throwable err) {
    try {
      Classification c = classifier.classify(a, rep, err);
      return c != null ? c : Classification.FAILURE;
    } catch (RuntimeException | Error e) {
      return Classification.FAILURE;
    }
  }

  /** The call's outcome is fixed ({@code by} the deciding attempt, or null). */
  void decided(Call<Req, Rep> call, Attempt<Req, Rep> by) {
    if (hedges != null) {
      hedges.decided(call, by, ticker.nanoTime());
    }
  }

  /** The caller's future is about to complete. */
  void delivered(Call<Req, Rep> call, boolean success) {
    deadlines.remove(call);
    if (metrics != ClientMetrics.NOOP) {
      metrics.call(success, ticker.nanoTime() - call.start);
    }
  }

  // --- endpoints, stats and lifecycle ---

  CallStats callStats() {
    return new CallStats(calls.sum(), retries.retries(), hedges == null ? 0 : hedges.sent(),
        hedges == null ? 0 : hedges.won());
  }

  RetryBudget retryBudget() {
    return retries.budget();
  }

  int inFlightCalls() {
    return deadlines.calls();
  }

  int lateAnswersAwaited() {
    return deadlines.lateAnswers();
  }

  /** Returns whether the calling thread is one of the client's event loops. */
  boolean inEventLoop() {
    for (EventExecutor e : group) {
      if (e.inEventLoop()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Closes with the configured grace and waits for it (plus 10 s for channels to close), except
   * on one of the client's event loops: waiting there would stall the loop the close needs.
   */
  void close() {
    CompletableFuture<Void> done = closeAsync(closeGrace);
    if (inEventLoop()) {
      return;
    }
    try {
      done.get(Durations.saturatedAdd(closeGrace.toMillis(), 10_000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Channels that did not close in time are closed by Netty eventually.
    }
  }

  CompletableFuture<Void> closeAsync(Duration grace) {
    long graceNanos = Durations.nanos(Objects.requireNonNull(grace, "grace"));
    if (!closed.compareAndSet(false, true)) {
      return terminated;
    }
    endpoints.closeFeed();
    CompletableFuture<Void> idle = new CompletableFuture<>();
    checkIdle(idle);
    // on loops already shut down no grace can run: the calls end now
    Future<?> graceTimer = later(() -> idle.complete(null), graceNanos, idle);
    idle.whenComplete((v, e) -> {
      graceTimer.cancel(false);
      if (hedges != null) {
        hedges.stop();
      }
      for (Call<Req, Rep> c : deadlines.stop()) {
        Attempt<Req, Rep> a = c.last;
        c.end(new ClientClosedException("client " + name + " closed before the call ended",
            a == null ? null : a.ep.address, c.attempts, a != null && a.written));
      }
      deadlines.giveUpLateAnswers(); // late answers are awaited no longer
      endpoints.close().whenComplete((x, y) -> terminated.complete(null));
    });
    return terminated;
  }

  private void checkIdle(CompletableFuture<Void> idle) {
    if (deadlines.calls() == 0) {
      idle.complete(null);
    } else if (!idle.isDone()) {
      later(() -> checkIdle(idle), 10_000_000, idle);
    }
  }

  // Runs the task on a loop after nanos; if the loops are shut down, completes orElse at once.
  private Future<?> later(Runnable task, long nanos, CompletableFuture<Void> orElse) {
    try {
      return group.next().schedule(task, nanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      orElse.complete(null);
      return CompletableFuture.completedFuture(null);
    }
  }
}

package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.health.HealthChecker;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.CallStats;
import dev.ballast.netty.EndpointStats;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.Role;
import dev.ballast.netty.error.ClientClosedException;
import dev.ballast.netty.health.internal.ActiveChecks;
import dev.ballast.netty.retry.RetryBudget;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * A client's engine: builds its modules and links them into a {@link Chain} in {@link
 * ModuleOrder}'s order, starts calls at the top of the chain, and runs the client's lifecycle
 * (close, its grace, the endpoints). It takes no part in a call once started: the call goes down
 * the chain's modules and its outcome comes back up through them.
 *
 * <p>The modules: {@link DeadlineModule}, {@link CallFilters}, {@link RetryModule}, {@link
 * HedgingModule}, {@link BalancerModule} (the balancer), {@link Feedback} (outlier detection,
 * metrics, the classifier), {@link AttemptFilters}, {@link PoolModule}; {@link Endpoints} holds
 * the pools and outlier detection's state ({@link Ejections}).
 */
public final class Stack<Req, Rep> {

  final String name;
  final Ticker ticker;
  final EventLoopGroup group;
  final Protocol<Req, Rep> protocol;
  final ClientMetrics metrics;
  final DeadlineModule<Req, Rep> deadlines;
  final RetryModule<Req, Rep> retries;
  final HedgingModule<Req, Rep> hedges;
  final Endpoints<Req, Rep> endpoints;
  final Chain<Req, Rep> chain;

  private final Duration timeout;
  private final long timeoutNanos;
  private final Duration closeGrace;
  private final LongAdder calls = new LongAdder();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();

  /** Builds the modules and the chain; starts the sweeps and the endpoint source last. */
  public Stack(ClientSpec<Req, Rep> b) {
    this.name = b.name();
    this.ticker = b.ticker();
    this.group = b.group();
    this.protocol = b.protocol();
    long lateAnswerWaitNanos = Durations.nanos(b.lateAnswerWait());
    this.timeout = b.timeout();
    this.timeoutNanos = Durations.nanos(b.timeout());
    this.closeGrace = b.closeGrace();
    this.metrics = b.meterRegistry() != null
        ? MicrometerClientMetrics.create(b.meterRegistry(), name) : ClientMetrics.NOOP;
    SplitMix random = new SplitMix(b.seed());
    this.deadlines = new DeadlineModule<>(name, closed, metrics, ticker);
    this.retries = new RetryModule<>(b.retry(), random, ticker, group, closed, metrics);
    this.hedges = b.hedging() == null ? null : new HedgingModule<>(b.hedging(), ticker, metrics);
    this.endpoints = new Endpoints<>(name, router(b), b.outlier(), protocol, b.pool(), group,
        ticker, random, metrics, closed, Endpoints.drainNanos(Durations.nanos(b.closeGrace()),
            timeoutNanos, lateAnswerWaitNanos));
    ResponseClassifier<Req, Rep> classifier =
        b.classifier() != null ? b.classifier() : protocol.classifier();
    CallFilters<Req, Rep> callFilters = new CallFilters<>(b.filters());
    AttemptFilters<Req, Rep> attemptFilters = new AttemptFilters<>(b.attemptFilters());
    BalancerModule<Req, Rep> picker = new BalancerModule<>(endpoints, classifier, protocol,
        random);
    long slowNanos = Durations.nanos(b.slowThreshold());
    List<Role> roles = b.order();
    this.chain = new Chain<>(roles, role -> {
      if (role.equals(Role.DEADLINE)) {
        return deadlines;
      } else if (role.equals(Role.CALL_FILTERS)) {
        return callFilters;
      } else if (role.equals(Role.RETRY)) {
        return retries;
      } else if (role.equals(Role.HEDGING)) {
        return hedges;
      } else if (role.equals(Role.BALANCER)) {
        return picker;
      } else if (role.equals(Role.OUTLIER_DETECTION)) {
        return new Feedback.Outliers<Req, Rep>(endpoints.detector);
      } else if (role.equals(Role.METRICS)) {
        return new Feedback.Metrics<>(name, slowNanos, endpoints);
      } else if (role.equals(Role.CLASSIFIER)) {
        return new Feedback.Classifier<>(classifier);
      } else if (role.equals(Role.ATTEMPT_FILTERS)) {
        return attemptFilters;
      } else if (role.equals(Role.POOL)) {
        return new PoolModule<Req, Rep>();
      }
      return new Feedback.Added<>(role, b.modules().get(role));
    }, b.trace(), ticker, b.completionExecutor(), lateAnswerWaitNanos, closed, deadlines, picker,
        roles.contains(Role.ATTEMPT_FILTERS) && !attemptFilters.isEmpty());
    endpoints.update(b.endpoints());
    // last: a constructor that throws leaves no sweep registered and no source started
    endpoints.startChecks(ActiveChecks.start(b.healthCheck(), protocol, group,
        (int) Math.min(Integer.MAX_VALUE, b.pool().connectTimeout().toMillis()), ticker, random,
        endpoints.states));
    deadlines.start(group);
    if (hedges != null) {
      hedges.start(group);
    }
    if (b.source() != null) {
      endpoints.feed(b.source(), timeoutNanos);
    }
  }

  private static <Req, Rep> Router<EndpointClient<Req, Rep>> router(
      ClientSpec<Req, Rep> b) {
    if (!b.subsets().enabled()) {
      return Router.of(b.balancerFactory().create(b.balancerConfig()));
    }
    return Router.of(b.subsets().applyTo(SubsetSelector.<EndpointClient<Req, Rep>>builder())
        .balancerFactory(() -> b.balancerFactory().create(b.balancerConfig())).build());
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Starts a call at the top of the chain; never throws (failures go into the future). */
  public CompletableFuture<Rep> call(Req request, CallOptions options) {
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
      call = new Call<>(chain, request, options,
          options.isIdempotent() || protocol.isIdempotent(request), t, ticker.nanoTime(), nanos);
      calls.increment();
      chain.top.enter(call);
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

  // --- endpoints, stats and lifecycle ---

  /** Returns the active health checker, or null when checks are off; for tests and diagnostics. */
  public HealthChecker<?> healthChecker() {
    ActiveChecks<EndpointClient<Req, Rep>> c = endpoints.checks;
    return c == null ? null : c.checker();
  }

  /** Returns the balancer's nodes as of now. */
  public List<? extends Node<?>> nodes() {
    return endpoints.router.nodes();
  }

  /** Returns the hedge delay a call starting now gets, or -1 for none (tests read it). */
  public long hedgeDelayNanos() {
    return hedges == null ? -1 : hedges.delayNanos();
  }

  /** Returns the client's name. */
  public String name() {
    return name;
  }

  /** Replaces the endpoints (see {@link Endpoints#update}). */
  public void updateEndpoints(Collection<Endpoint> update) {
    endpoints.update(update);
  }

  /** Returns the current endpoints, in update order. */
  public List<Endpoint> endpoints() {
    return endpoints.endpoints();
  }

  /** Returns a future completed once the endpoints satisfy the condition (see the client's). */
  public CompletableFuture<List<Endpoint>> endpointsWhen(
      Predicate<? super List<Endpoint>> condition) {
    return endpoints.waiters.when(condition);
  }

  /** Returns how many endpoint futures wait, done ones included until the next update (tests). */
  public int endpointWaiters() {
    return endpoints.waiters.size();
  }

  /** Returns the endpoint source's feed, or null. */
  public EndpointFeed feed() {
    return endpoints.feed();
  }

  /** Returns every current endpoint's counters. */
  public List<EndpointStats> stats() {
    return endpoints.stats();
  }

  /** Returns the client's status now (see the client's). */
  public BalancerStatus status() {
    return endpoints.status();
  }

  /** Returns the balancer's name. */
  public String balancerName() {
    return endpoints.router.name();
  }

  public CallStats callStats() {
    return new CallStats(calls.sum(), retries.retries(), hedges == null ? 0 : hedges.sent(),
        hedges == null ? 0 : hedges.won());
  }

  public RetryBudget retryBudget() {
    return retries.budget();
  }

  public int inFlightCalls() {
    return deadlines.calls();
  }

  public int lateAnswersAwaited() {
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
  public void close() {
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

  public CompletableFuture<Void> closeAsync(Duration grace) {
    long graceNanos = Durations.nanos(Objects.requireNonNull(grace, "grace"));
    if (!closed.compareAndSet(false, true)) {
      return terminated;
    }
    endpoints.closeFeed();
    endpoints.waiters.close();
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

package dev.ballast.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameTooLargeException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Exchange;
import dev.ballast.netty.internal.FramedProtocol;
import dev.ballast.netty.internal.HttpProtocol;
import dev.ballast.netty.internal.Protocol;
import dev.ballast.netty.internal.RemoteError;
import dev.ballast.netty.internal.SharedSweeper;
import dev.ballast.netty.internal.Transport;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.EncoderException;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * A client that balances calls over a set of endpoints: the Finagle-style stack
 *
 * <pre>
 * call -> [your filters] -> deadline -> retries (under a {@link RetryBudget})
 *      -> label subset (when {@linkplain Builder#subsets configured}) -> balancer pick
 *      -> outlier detection -> {@link ConnectionPool} of the endpoint -> Netty channel
 * </pre>
 *
 * <p>Each call gets one deadline for all its attempts; when it passes, the call fails with
 * {@link DeadlineExceededException}. A deadline frees the caller, not the server: on a framed
 * (multiplexed) connection a request already written stays pending on its node after the deadline,
 * until the late answer arrives (the balancer then hears its true latency, as a failure), the
 * connection closes, or {@linkplain Builder#lateAnswerWait the wait} ends. A failed attempt is
 * retried on another pick when the request never reached a server ({@link
 * BallastException#reachedServer()} false), or for any failure when the call is {@linkplain
 * CallOptions#idempotent() idempotent}, while the budget allows and at most {@code maxAttempts}
 * times. The balancer hears each attempt's latency and outcome ({@link Node#complete}), or {@link
 * Node#cancel} when the request was never sent; outlier detection ejects failing endpoints by
 * setting their node {@link Availability#CLOSED}.
 *
 * <pre>{@code
 * try (BallastClient<byte[], byte[]> client = BallastClient.framed()
 *     .endpoints("127.0.0.1:9001;weight=2,127.0.0.1:9002")
 *     .balancer(Algorithm.P2C_PEAK_EWMA)
 *     .timeout(Duration.ofMillis(500))
 *     .build()) {
 *   byte[] reply = client.call("hello".getBytes()).get();
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #updateEndpoints} changes the set at runtime: removed endpoints' pools
 * drain (their in-flight requests finish) and close. {@link #close()} stops new calls, lets
 * in-flight ones finish within the grace period and fails the rest with {@link
 * ClientClosedException}.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public final class BallastClient<Req, Rep> implements Service<Req, Rep>, AutoCloseable {

  private static final System.Logger SLOW_LOG = System.getLogger("dev.ballast.netty.slow");

  private final String name;
  private final Router<EndpointClient<Req, Rep>> balancer;
  private final Protocol<Req, Rep> protocol;
  private final PoolConfig poolConfig;
  private final EventLoopGroup group;
  private final Ticker ticker;
  private final RandomGenerator poolRandom;
  private final Duration timeout;
  private final int maxAttempts;
  private final RetryBudget budget;
  private final OutlierDetector detector;
  private final long slowNanos;
  private final Duration closeGrace;
  private final long lateWaitNanos;
  private final Service<Req, Rep> filtered;
  private final ClientMetrics metrics;
  private final ConcurrentHashMap<String, EndpointClient<Req, Rep>> byAddress =
      new ConcurrentHashMap<>();
  private final DeadlineWheel<Call> calls;
  private final DeadlineWheel<Orphan> orphans;
  private final SharedSweeper.Registration sweeper;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final Object updateLock = new Object();
  private volatile EndpointFeed feed;

  private BallastClient(Builder<Req, Rep> b) {
    this.name = b.name;
    this.protocol = b.protocol.apply(b);
    this.poolConfig = b.pool;
    this.group = b.group;
    this.ticker = b.ticker;
    this.poolRandom = new SplittableRandom(b.seed);
    this.timeout = b.timeout;
    this.maxAttempts = b.maxAttempts;
    this.budget = b.budget != null ? b.budget : RetryBudget.create();
    this.slowNanos = b.slowThreshold.toNanos();
    this.closeGrace = b.closeGrace;
    this.lateWaitNanos = b.lateAnswerWait.toNanos();
    BalancerConfig config = b.balancerConfig;
    BalancerFactory factory = b.balancerFactory;
    if (b.subsetSelectors != null) {
      SubsetSelector.Builder<EndpointClient<Req, Rep>> sb =
          SubsetSelector.<EndpointClient<Req, Rep>>builder()
              .selectors(b.subsetSelectors)
              .fallbackPolicy(b.fallbackPolicy)
              .allowRedundantKeys(b.allowRedundantKeys)
              .balancerFactory(() -> factory.create(config));
      if (b.defaultSubset != null) {
        sb.defaultSubset(b.defaultSubset);
      }
      this.balancer = Router.of(sb.build());
    } else {
      this.balancer = Router.of(factory.create(config));
    }
    this.detector = new OutlierDetector(b.outlier, ticker, new SplittableRandom(b.seed + 1),
        new OutlierDetector.Listener() {
          @Override
          public void ejected(OutlierDetector.Host host, long nanos, String reason) {
            onEjected(host, nanos);
          }

          @Override
          public void reinstated(OutlierDetector.Host host) {
            EndpointClient<Req, Rep> ep = byAddress.get(host.address);
            if (ep != null && ep.host == host) {
              ep.setAvailability(Availability.OPEN);
            }
          }
        });
    this.metrics = b.meterRegistry != null
        ? MicrometerClientMetrics.create(b.meterRegistry, name)
        : ClientMetrics.NOOP;
    // Deadlines: a sweep every 5 ms over a wheel of 1024 buckets (5.12 s per turn; longer
    // deadlines wait in their bucket for later turns), on a timer shared by every client on
    // the same event loop.
    long tick = TimeUnit.MILLISECONDS.toNanos(5);
    this.calls = new DeadlineWheel<>(tick, 1024, ticker.nanoTime());
    this.orphans = new DeadlineWheel<>(tick, 1024, ticker.nanoTime());
    Service<Req, Rep> core = req -> call(req, CallOptions.DEFAULT);
    this.filtered = b.filters.isEmpty() ? null : compose(b.filters, core);
    updateEndpoints(b.endpoints);
    // last: a constructor that throws leaves no sweep registered
    this.sweeper = SharedSweeper.register(group.next(), tick, () -> {
      long now = ticker.nanoTime();
      calls.sweep(now, Call::expire);
      orphans.sweep(now, Orphan::expire);
    });
    if (b.source != null) {
      this.feed = EndpointFeed.builder(b.source).start(sink);
      metrics.source(feed);
    }
  }

  private static <Req, Rep> Service<Req, Rep> compose(
      List<Filter<Req, Rep>> filters, Service<Req, Rep> service) {
    Service<Req, Rep> s = service;
    for (int i = filters.size() - 1; i >= 0; i--) {
      s = filters.get(i).andThen(s);
    }
    return s;
  }

  /** Returns a builder of a client speaking the framed protocol ({@code byte[]} payloads). */
  public static Builder<byte[], byte[]> framed() {
    return new Builder<>(b -> new FramedProtocol(b.maxFrameSize,
        b.pool.maxInFlightPerConnection()));
  }

  /** Returns a builder of an HTTP/1.1 client (one request per connection at a time). */
  public static Builder<HttpRequest, HttpResponse> http() {
    return new Builder<>(b -> new HttpProtocol(b.maxFrameSize));
  }

  /** Returns the client's name (a metrics tag); default {@code ballast}. */
  public String name() {
    return name;
  }

  /** Calls with the default options: the client's timeout, not idempotent, no labels. */
  @Override
  public CompletableFuture<Rep> call(Req request) {
    if (filtered != null) {
      return filtered.call(request);
    }
    return call(request, CallOptions.DEFAULT);
  }

  /**
   * Calls with per-call options. The returned future always completes: with the response, or
   * a {@link BallastException} (or lb-core's {@link NoAvailableEndpointException}) no later than
   * the deadline.
   */
  public CompletableFuture<Rep> call(Req request, CallOptions options) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    if (closed.get()) {
      return CompletableFuture.failedFuture(
          new ClientClosedException("client " + name + " is closed", null, 0, false));
    }
    Duration t = options.timeout() != null ? options.timeout() : timeout;
    Call call = new Call(request, options, t, ticker.nanoTime());
    calls.add(call);
    if (closed.get()) {
      call.fail(new ClientClosedException("client " + name + " is closed", null, 0, false));
      return call.future;
    }
    budget.deposit();
    startAttempt(call);
    return call.future;
  }

  /**
   * Replaces the endpoint set. New endpoints get a pool; endpoints that stay keep their pool,
   * load state and detection state (and take the new weight and labels); removed endpoints stop
   * taking requests and their pools drain, then close.
   *
   * @throws IllegalArgumentException if the balancer rejects the set (the old set stays)
   * @throws IllegalStateException if the client is closed
   */
  public void updateEndpoints(Collection<Endpoint> endpoints) {
    Objects.requireNonNull(endpoints, "endpoints");
    change(r -> r.update(endpoints, this::newEndpoint));
  }

  // a source's pushes: deltas into a subset selector, whole sets into a balancer
  private final EndpointSink sink = new EndpointSink() {
    @Override
    public void update(List<Endpoint> endpoints) {
      if (!closed.get()) {
        updateEndpoints(endpoints);
      }
    }

    @Override
    public boolean takesDeltas() {
      return balancer.takesDeltas();
    }

    @Override
    public void apply(Collection<Endpoint> upserts, Collection<String> removedAddresses) {
      if (!closed.get()) {
        change(r -> r.apply(upserts, removedAddresses, BallastClient.this::newEndpoint));
      }
    }
  };

  private void change(
      Function<Router<EndpointClient<Req, Rep>>, List<Node<EndpointClient<Req, Rep>>>> how) {
    List<Node<EndpointClient<Req, Rep>>> removed;
    synchronized (updateLock) {
      if (closed.get()) {
        throw new IllegalStateException("client " + name + " is closed");
      }
      removed = how.apply(balancer);
      for (Node<EndpointClient<Req, Rep>> n : balancer.nodes()) {
        EndpointClient<Req, Rep> ep = n.value();
        if (ep.node == null) {
          ep.node = n;
          if (ep.host.isEjected()) {
            n.setAvailability(Availability.CLOSED);
          }
          ep.metrics = metrics.endpoint(ep);
        }
      }
      for (Node<EndpointClient<Req, Rep>> n : removed) {
        EndpointClient<Req, Rep> ep = n.value();
        byAddress.remove(ep.address, ep);
        detector.remove(ep.host);
        n.setAvailability(Availability.CLOSED);
      }
    }
    for (Node<EndpointClient<Req, Rep>> n : removed) {
      EndpointClient<Req, Rep> ep = n.value();
      ep.pool.drain().whenComplete((v, e) -> ep.metrics.close());
      // A request stuck past every deadline and late-answer wait cannot hold the pool open for
      // ever.
      group.next().schedule(ep.pool::close,
          closeGrace.toNanos() + timeout.toNanos() + lateWaitNanos, TimeUnit.NANOSECONDS);
    }
  }

  private EndpointClient<Req, Rep> newEndpoint(Endpoint e) {
    ConnectionPool<Req, Rep> pool = new ConnectionPool<>(
        e, poolConfig, protocol, group, ticker, poolRandom);
    EndpointClient<Req, Rep> ep = new EndpointClient<>(e, pool, detector.add(e.address()));
    byAddress.put(ep.address, ep);
    return ep;
  }

  /** Returns the current endpoints, in update order. */
  public List<Endpoint> endpoints() {
    List<Endpoint> out = new ArrayList<>();
    for (Node<EndpointClient<Req, Rep>> n : balancer.nodes()) {
      out.add(n.endpoint());
    }
    return out;
  }

  /** Returns the feed of the endpoint source given to the builder, or null if none was. */
  public EndpointFeed feed() {
    return feed;
  }

  /** Returns a snapshot of every current endpoint's counters. */
  public List<EndpointStats> stats() {
    List<EndpointStats> out = new ArrayList<>();
    for (Node<EndpointClient<Req, Rep>> n : balancer.nodes()) {
      out.add(n.value().stats());
    }
    return out;
  }

  /**
   * Returns the balancer's algorithm name; {@code label_subset(<algorithm>)} when subsets are
   * configured.
   */
  public String balancerName() {
    return balancer.name();
  }

  /** Returns the retry budget. */
  public RetryBudget retryBudget() {
    return budget;
  }

  /**
   * Returns how many calls have started and not ended. A call leaves this count just after its
   * future completes, on the thread that completed it, so a caller that has just seen the future
   * complete may still see it counted for a moment.
   */
  public int inFlightCalls() {
    return calls.size();
  }

  /**
   * Returns how many requests were given up by their callers at the deadline and still await
   * their late answer (each holds its node's pending count and its connection's in-flight slot).
   */
  public int lateAnswersAwaited() {
    return orphans.size();
  }

  /**
   * Closes with the configured grace period and waits for it (at most the grace period plus
   * 10 s for channels to close).
   */
  @Override
  public void close() {
    try {
      closeAsync(closeGrace).get(closeGrace.toMillis() + 10_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Channels that did not close in time are closed by Netty eventually.
    }
  }

  /**
   * Stops new calls (they fail with {@link ClientClosedException}), lets in-flight calls finish
   * within {@code grace}, fails the rest with {@link ClientClosedException}, then closes every
   * pool and channel. The future completes when every channel has closed.
   */
  public CompletableFuture<Void> closeAsync(Duration grace) {
    Objects.requireNonNull(grace, "grace");
    if (!closed.compareAndSet(false, true)) {
      return terminated;
    }
    if (feed != null) {
      feed.close();
    }
    CompletableFuture<Void> idle = new CompletableFuture<>();
    checkIdle(idle);
    ScheduledFuture<?> graceTimer = group.next().schedule(
        () -> idle.complete(null), grace.toNanos(), TimeUnit.NANOSECONDS);
    idle.whenComplete((v, e) -> {
      graceTimer.cancel(false);
      sweeper.close();
      for (Call c : calls.all()) {
        Attempt a = c.current;
        c.end(new ClientClosedException("client " + name + " closed before the call ended",
            addressOf(a), c.attempts, a != null && a.written));
      }
      // Late answers are awaited no longer: their requests end now.
      for (Orphan o : orphans.all()) {
        if (orphans.remove(o)) {
          o.attempt.lateAnswerGivenUp();
        }
      }
      List<CompletableFuture<Void>> pools = new ArrayList<>();
      synchronized (updateLock) {
        for (Node<EndpointClient<Req, Rep>> n : balancer.nodes()) {
          pools.add(n.value().pool.close());
          n.value().metrics.close();
        }
      }
      CompletableFuture.allOf(pools.toArray(new CompletableFuture<?>[0]))
          .whenComplete((x, y) -> terminated.complete(null));
    });
    return terminated;
  }

  private void checkIdle(CompletableFuture<Void> idle) {
    if (calls.size() == 0) {
      idle.complete(null);
    } else if (!idle.isDone()) {
      group.next().schedule(() -> checkIdle(idle), 10, TimeUnit.MILLISECONDS);
    }
  }

  // --- the stack ---

  private void onEjected(OutlierDetector.Host host, long nanos) {
    EndpointClient<Req, Rep> ep = byAddress.get(host.address);
    if (ep == null || ep.host != host) {
      return;
    }
    ep.setAvailability(Availability.CLOSED);
    ep.metrics.ejected();
    group.next().schedule(detector::reinstateExpired, nanos, TimeUnit.NANOSECONDS);
  }

  private String addressOf(Attempt a) {
    return a == null ? null : a.ep.address;
  }

  private void startAttempt(Call call) {
    int number = ++call.attempts;
    Node<EndpointClient<Req, Rep>> node;
    try {
      node = pick(call);
    } catch (NoAvailableEndpointException e) {
      Attempt last = call.current;
      call.fail(last != null && last.failure != null ? last.failure : e);
      return;
    }
    Attempt a = new Attempt(call, node, number);
    call.current = a;
    if (call.future.isDone()) {
      a.abandon();
      return;
    }
    ConnectionPool<Req, Rep> pool = node.value().pool;
    PooledConnection<Req, Rep> free = pool.acquireBefore(call.deadline, number, a);
    if (free != null) {
      a.accept(free, null);
    }
  }

  private Node<EndpointClient<Req, Rep>> pick(Call call) {
    Node<EndpointClient<Req, Rep>> node = balancer.pick(call.options);
    Attempt last = call.current;
    // A retry avoids the endpoint that just failed, with bounded effort.
    for (int i = 0; i < 3 && last != null && node.value() == last.ep; i++) {
      node.cancel();
      node = balancer.pick(call.options);
    }
    return node;
  }

  private void attemptFailed(Call call, Attempt a, BallastException failure) {
    if (call.future.isDone()) {
      return;
    }
    boolean retryable = !failure.reachedServer() || call.options.isIdempotent();
    if (retryable && call.attempts < maxAttempts && !closed.get()
        && call.deadline - ticker.nanoTime() > 0) {
      if (budget.tryWithdraw()) {
        metrics.retry();
        startAttempt(call);
        return;
      }
      metrics.budgetExhausted();
    }
    call.fail(failure);
  }

  private BallastException classify(Throwable cause, String address, int number,
      boolean written) {
    if (cause instanceof BallastException) {
      return (BallastException) cause;
    }
    if (cause instanceof RemoteError) {
      return new RemoteException("server error: " + cause.getMessage(), address, number, null);
    }
    Throwable root = cause;
    if (root instanceof EncoderException && root.getCause() != null) {
      root = root.getCause();
    }
    if (root instanceof FrameTooLargeException && !written) {
      return new ProtocolErrorException("request too large: " + root.getMessage(), address,
          number, root);
    }
    if (root instanceof DecoderException || root instanceof CodecException) {
      return new ProtocolErrorException("bad response, connection closed: " + root.getMessage(),
          address, number, root);
    }
    return new ConnectionClosedException(
        (written ? "connection closed with the request in flight: "
            : "connection closed before the request was written: ") + cause,
        address, number, written, cause);
  }

  /** One call: its entry in the deadline wheel and its attempts. */
  private final class Call extends DeadlineWheel.Entry {
    final Req request;
    final CallOptions options;
    final Duration timeout;
    final long start;
    final CompletableFuture<Rep> future = new CompletableFuture<>();
    volatile int attempts;
    volatile Attempt current;

    Call(Req request, CallOptions options, Duration timeout, long start) {
      super(start + timeout.toNanos());
      this.request = request;
      this.options = options;
      this.timeout = timeout;
      this.start = start;
    }

    /**
     * The deadline passed (called by the wheel's sweep): the caller gets its failure now, and a
     * written request may stay behind to await its late answer.
     */
    void expire() {
      end(new DeadlineExceededException(timeout, addressOf(current), attempts,
          current != null && current.written));
    }

    /**
     * Ends the call with {@code t}, first giving back what its attempt holds, or leaving a
     * written request on its connection to await its answer ({@link Attempt#abandon}).
     */
    void end(BallastException t) {
      if (future.isDone()) {
        return;
      }
      Attempt a = current;
      if (a != null) {
        a.abandon();
      }
      fail(t);
    }

    void succeed(Rep rep) {
      if (future.complete(rep)) {
        done(true);
      }
    }

    boolean fail(Throwable t) {
      if (future.completeExceptionally(t)) {
        done(false);
        return true;
      }
      return false;
    }

    private void done(boolean success) {
      calls.remove(this);
      metrics.call(success, ticker.nanoTime() - start);
    }
  }

  /** One attempt of a call on one picked node. */
  private final class Attempt implements Exchange<Rep>,
      java.util.function.BiConsumer<PooledConnection<Req, Rep>, Throwable> {
    final Call call;
    final Node<EndpointClient<Req, Rep>> node;
    final EndpointClient<Req, Rep> ep;
    final int number;
    final long start;
    private boolean ended;
    private PooledConnection<Req, Rep> conn;
    private long token;
    volatile boolean written;
    volatile BallastException failure;
    private Orphan orphan; // set under this lock, before ended

    @Override
    public String toString() {
      return "attempt " + number + " on " + ep.address;
    }

    Attempt(Call call, Node<EndpointClient<Req, Rep>> node, int number) {
      this.call = call;
      this.node = node;
      this.ep = node.value();
      this.number = number;
      this.start = ticker.nanoTime();
    }

    // The pool's answer to acquire.
    @Override
    public void accept(PooledConnection<Req, Rep> c, Throwable error) {
      if (error != null) {
        synchronized (this) {
          if (ended) {
            return;
          }
          ended = true;
        }
        node.cancel();
        BallastException f = classify(error, ep.address, number, false);
        failure = f;
        if (f instanceof ConnectFailedException) {
          recordFailure(ticker.nanoTime() - start, f);
          EndpointFeed source = feed;
          if (source != null) {
            source.refresh(); // a DNS source re-resolves early (at most once a second)
          }
        }
        attemptFailed(call, this, f);
        return;
      }
      synchronized (this) {
        if (!ended && !call.future.isDone()) {
          conn = c;
          token = c.dispatcher.send(call.request, this);
          return;
        }
      }
      ep.pool.release(c, true);
      abandon();
    }

    private synchronized boolean end() {
      if (ended) {
        return false;
      }
      ended = true;
      return true;
    }

    @Override
    public void onWritten() {
      written = true;
    }

    @Override
    public void onResponse(Rep response) {
      if (!end()) {
        return;
      }
      if (orphan != null) {
        lateAnswer(true);
        return;
      }
      ep.pool.release(conn, true);
      long latency = ticker.nanoTime() - start;
      node.complete(latency, true);
      detector.record(ep.host, true);
      ep.successes.increment();
      ep.metrics.success(latency);
      if (latency >= slowNanos) {
        SLOW_LOG.log(System.Logger.Level.WARNING, () -> "slow request: endpoint " + ep.address
            + ", attempt " + number + ", latency " + TimeUnit.NANOSECONDS.toMillis(latency)
            + " ms (threshold " + TimeUnit.NANOSECONDS.toMillis(slowNanos) + " ms), client "
            + name);
      }
      call.succeed(response);
    }

    @Override
    public void onFailure(Throwable cause) {
      if (!end()) {
        return;
      }
      if (orphan != null) {
        // An error answer, or the connection closed: the wait ends now.
        lateAnswer(!conn.dispatcher.isPoisoned());
        return;
      }
      BallastException f = classify(cause, ep.address, number, written);
      failure = f;
      // The connection stays unless it broke (a remote error or a refused request leave it).
      ep.pool.release(conn, !conn.dispatcher.isPoisoned());
      long latency = ticker.nanoTime() - start;
      if (written) {
        node.complete(latency, false);
      } else {
        node.cancel();
      }
      recordFailure(latency, f);
      attemptFailed(call, this, f);
    }

    /**
     * The orphan's answer came (or the connection ended): its node hears the true latency, as a
     * failure (the caller had given up), and the connection slot is freed. (Detection and
     * metrics counted the failure at the deadline.)
     */
    private void lateAnswer(boolean reusable) {
      orphans.remove(orphan);
      ep.pool.release(conn, reusable);
      finishOrphan();
    }

    /**
     * No answer within the late-answer wait, or the client closes: the request ends now. Its
     * connection, which a stalled request may mean is stuck, takes no new requests and closes
     * once its last one ends.
     */
    void lateAnswerGivenUp() {
      if (!end()) {
        return;
      }
      conn.dispatcher.cancel(token);
      ep.pool.release(conn, false);
      finishOrphan();
    }

    private void finishOrphan() {
      node.complete(ticker.nanoTime() - start, false);
    }

    /**
     * Counts a failed attempt where the caller and operators see it: outlier detection, the
     * endpoint's failure count and the metrics ({@code f} null for a deadline).
     */
    private void recordFailure(long latencyNanos, BallastException f) {
      detector.record(ep.host, false);
      ep.failures.increment();
      ep.metrics.failure(latencyNanos, f);
    }

    /**
     * The call ended without this attempt (deadline or close): give everything back, or, when
     * the request is written on a connection that keeps late answers and the client is open,
     * leave it there as an orphan that keeps its node's pending count and its connection slot
     * until the answer comes, the connection closes or the late-answer wait ends.
     */
    void abandon() {
      PooledConnection<Req, Rep> c;
      long tok;
      synchronized (this) {
        if (ended || orphan != null) {
          return;
        }
        c = conn;
        tok = token;
        if (c != null && written && lateWaitNanos > 0 && !closed.get()
            && c.dispatcher.keepsLateAnswers()) {
          orphan = new Orphan(this, ticker.nanoTime() + lateWaitNanos);
          orphans.add(orphan);
        } else {
          ended = true;
        }
      }
      if (orphan != null) {
        // The caller's view ends now: outlier detection and metrics count the timeout at once
        // (a stalled endpoint is ejected as promptly as before); only the node waits.
        recordFailure(ticker.nanoTime() - start, null);
        return;
      }
      if (c == null) {
        node.cancel();
        return;
      }
      c.dispatcher.cancel(tok);
      ep.pool.release(c, !c.dispatcher.isPoisoned());
      long latency = ticker.nanoTime() - start;
      if (written) {
        node.complete(latency, false);
        recordFailure(latency, null);
      } else {
        node.cancel();
      }
    }
  }

  /** A request whose caller gave up at the deadline, awaiting its late answer until its own. */
  private final class Orphan extends DeadlineWheel.Entry {
    final Attempt attempt;

    Orphan(Attempt attempt, long deadline) {
      super(deadline);
      this.attempt = attempt;
    }

    /** The late-answer wait ended (called by the wheel's sweep). */
    void expire() {
      attempt.lateAnswerGivenUp();
    }
  }

  /**
   * Builds a {@link BallastClient}. Defaults: no endpoints, {@link Algorithm#P2C_PEAK_EWMA}, {@link
   * BalancerConfig#defaults()}, timeout 5 s, 3 attempts, {@link RetryBudget#create()}, {@link
   * PoolConfig#defaults()}, {@link OutlierDetection#defaults()}, slow-request threshold 1 s, close
   * grace 5 s, late-answer wait 10 s, no label subsets, max frame (or HTTP body) size 16 MiB, the
   * process-wide event loops.
   *
   * @param <Req> the request type
   * @param <Rep> the response type
   */
  public static final class Builder<Req, Rep> {
    private final Function<Builder<Req, Rep>, Protocol<Req, Rep>> protocol;
    private String name = "ballast";
    private List<Endpoint> endpoints = List.of();
    private EndpointSource source;
    private BalancerFactory balancerFactory = Algorithm.P2C_PEAK_EWMA::create;
    private BalancerConfig balancerConfig = BalancerConfig.defaults();
    private Duration timeout = Duration.ofSeconds(5);
    private int maxAttempts = 3;
    private RetryBudget budget;
    private PoolConfig pool = PoolConfig.defaults();
    private OutlierDetection outlier = OutlierDetection.defaults();
    private Duration slowThreshold = Duration.ofSeconds(1);
    private Duration closeGrace = Duration.ofSeconds(5);
    private Duration lateAnswerWait = Duration.ofSeconds(10);
    private int maxFrameSize = FrameDecoder.DEFAULT_MAX_FRAME_SIZE;
    private EventLoopGroup group = Transport.sharedGroup();
    private Ticker ticker = Ticker.system();
    private long seed = System.nanoTime();
    private final List<Filter<Req, Rep>> filters = new ArrayList<>();
    private Object meterRegistry;
    private List<List<String>> subsetSelectors;
    private FallbackPolicy fallbackPolicy = FallbackPolicy.NO_FALLBACK;
    private Map<String, String> defaultSubset;
    private boolean allowRedundantKeys;

    private Builder(Function<Builder<Req, Rep>, Protocol<Req, Rep>> protocol) {
      this.protocol = protocol;
    }

    /** Sets the client's name, used as the {@code client} metrics tag; default ballast. */
    public Builder<Req, Rep> name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Sets the initial endpoints; default none. */
    public Builder<Req, Rep> endpoints(Collection<Endpoint> endpoints) {
      this.endpoints = List.copyOf(endpoints);
      return this;
    }

    /** Sets the initial endpoints in the textual form, comma-separated. */
    public Builder<Req, Rep> endpoints(String endpoints) {
      return endpoints(Endpoint.parseList(endpoints));
    }

    /**
     * Takes the endpoints from a source (a registry, DNS) through an {@link EndpointFeed} with
     * its defaults: each push replaces or changes the set as {@link #updateEndpoints} does (a
     * subset client gets deltas), malformed entries are skipped, and an outage of the source
     * keeps the last endpoints. Connection failures ask the source for an early re-read. The
     * client starts the source when built and closes it when closed. Default: none.
     */
    public Builder<Req, Rep> source(EndpointSource source) {
      this.source = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Takes the endpoints from the source of a target URI, found by its scheme on the class
     * path: {@code zookeeper://host:port/services/orders} (lb-discovery-zookeeper), {@code
     * etcd://host:port/services/orders/} (lb-discovery-etcd), {@code
     * ballast-dns:///orders.internal:8080} (lb-discovery-dns).
     *
     * @throws IllegalArgumentException if no source handles the scheme, or it rejects the target
     */
    public Builder<Req, Rep> source(String target) {
      return source(EndpointSourceProvider.open(target));
    }

    /** Sets the balancing algorithm; default {@link Algorithm#P2C_PEAK_EWMA}. */
    public Builder<Req, Rep> balancer(Algorithm algorithm) {
      Objects.requireNonNull(algorithm, "algorithm");
      this.balancerFactory = algorithm::create;
      return this;
    }

    /** Sets the balancing algorithm by name, e.g. {@code vnswrr} (see {@link Algorithm}). */
    public Builder<Req, Rep> balancer(String algorithm) {
      return balancer(Algorithm.fromName(algorithm));
    }

    /** Sets any balancer factory, e.g. a composite (label subsets) one. */
    public Builder<Req, Rep> balancer(BalancerFactory factory) {
      this.balancerFactory = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /**
     * Routes each call by its {@linkplain CallOptions#withLabels labels} through lb-core's {@link
     * SubsetSelector}: a call goes to the endpoints whose {@link Endpoint#labels() labels} have
     * the call's values for one of the {@code selectors} (each a set of label keys, e.g. {@code
     * [zone]} or {@code [zone, version]}; the call's keys must be exactly a selector's), and the
     * {@linkplain #balancer(Algorithm) balancer algorithm} picks among them, with its settings.
     * The selector owns the nodes: every subset's child balancer shares them, so an endpoint's
     * load is seen by every subset it is in. Calls that match no subset (calls without labels
     * included) get the {@code fallback}: {@link FallbackPolicy#NO_FALLBACK} fails them with
     * {@link NoAvailableEndpointException} naming the labels (not retried), {@link
     * FallbackPolicy#ANY_ENDPOINT} balances over every endpoint, {@link
     * FallbackPolicy#DEFAULT_SUBSET} over the endpoints having all of {@code defaultSubset}.
     * Endpoint updates re-label at runtime: traffic follows the new labels, and removed
     * endpoints drain as without subsets. Default: no subsets (labels are ignored).
     *
     * @param selectors the selectors, at least one
     * @param fallback what a call matching no subset gets
     * @param defaultSubset the labels of the default subset; required (may be empty: every
     *     endpoint) for DEFAULT_SUBSET, ignored otherwise; may be null otherwise
     * @throws IllegalArgumentException if there is no selector, a selector has no key, an empty
     *     or repeated key, or is given twice, or if {@code fallback} is DEFAULT_SUBSET and
     *     {@code defaultSubset} is null
     */
    public Builder<Req, Rep> subsets(Collection<? extends Collection<String>> selectors,
        FallbackPolicy fallback, Map<String, String> defaultSubset) {
      Objects.requireNonNull(selectors, "selectors");
      Objects.requireNonNull(fallback, "fallback");
      if (selectors.isEmpty()) {
        throw new IllegalArgumentException("selectors: none (expected: at least one)");
      }
      if (fallback == FallbackPolicy.DEFAULT_SUBSET && defaultSubset == null) {
        throw new IllegalArgumentException(
            "defaultSubset: null (expected: labels when the fallback is DEFAULT_SUBSET)");
      }
      // Checks the selectors and labels now, with lb-core's own rules.
      SubsetSelector.Builder<Object> check = SubsetSelector.builder().selectors(selectors);
      if (defaultSubset != null) {
        check.defaultSubset(defaultSubset);
      }
      List<List<String>> copy = new ArrayList<>();
      for (Collection<String> s : selectors) {
        copy.add(List.copyOf(s));
      }
      this.subsetSelectors = List.copyOf(copy);
      this.fallbackPolicy = fallback;
      this.defaultSubset = fallback == FallbackPolicy.DEFAULT_SUBSET
          ? Map.copyOf(defaultSubset) : null;
      return this;
    }

    /**
     * Lets call labels carry keys that are in no selector, as Envoy's {@code
     * allow_redundant_keys} (see {@link SubsetSelector.Builder#allowRedundantKeys}); only with
     * {@link #subsets}; default false.
     */
    public Builder<Req, Rep> subsetsAllowRedundantKeys(boolean allow) {
      this.allowRedundantKeys = allow;
      return this;
    }

    /** Sets the balancer's settings; default {@link BalancerConfig#defaults()}. */
    public Builder<Req, Rep> balancerConfig(BalancerConfig config) {
      this.balancerConfig = Objects.requireNonNull(config, "config");
      return this;
    }

    /** Sets the per-call deadline, all attempts included; default 5 s. */
    public Builder<Req, Rep> timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
      }
      this.timeout = timeout;
      return this;
    }

    /** Sets the most attempts per call, the first included; default 3 (1 disables retries). */
    public Builder<Req, Rep> maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts: " + maxAttempts + " (expected: > 0)");
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Sets the retry budget; default {@link RetryBudget#create()} (Finagle's defaults). */
    public Builder<Req, Rep> retryBudget(RetryBudget budget) {
      this.budget = Objects.requireNonNull(budget, "budget");
      return this;
    }

    /** Sets the per-endpoint pool settings; default {@link PoolConfig#defaults()}. */
    public Builder<Req, Rep> pool(PoolConfig pool) {
      this.pool = Objects.requireNonNull(pool, "pool");
      return this;
    }

    /** Sets outlier detection; default {@link OutlierDetection#defaults()}. */
    public Builder<Req, Rep> outlierDetection(OutlierDetection outlier) {
      this.outlier = Objects.requireNonNull(outlier, "outlier");
      return this;
    }

    /** Sets the latency at or above which an attempt is logged as slow; default 1 s. */
    public Builder<Req, Rep> slowRequestThreshold(Duration threshold) {
      Objects.requireNonNull(threshold, "threshold");
      if (threshold.isNegative()) {
        throw new IllegalArgumentException("slowRequestThreshold: " + threshold
            + " (expected: >= 0)");
      }
      this.slowThreshold = threshold;
      return this;
    }

    /** Sets how long {@link #close()} lets in-flight calls finish; default 5 s. */
    public Builder<Req, Rep> closeGrace(Duration grace) {
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new IllegalArgumentException("closeGrace: " + grace + " (expected: >= 0)");
      }
      this.closeGrace = grace;
      return this;
    }

    /**
     * Sets how long a request written on a framed connection is still awaited after its call's
     * deadline; default 10 s. The caller's future fails at the deadline either way; until the late
     * answer arrives (or the connection closes, or this wait ends) the request keeps its node's
     * pending count and its connection slot, and the balancer then hears its true latency (as a
     * failure), so a backend that is slow past the deadline is seen as loaded and slow instead of
     * as fast as the deadline. Outlier detection, metrics and {@link EndpointStats#failures()}
     * count the failure at the deadline, as the caller sees it. When the wait ends first, the
     * request ends then and its connection is dropped once its other requests end. Zero gives up
     * written requests at the deadline (their late answers are dropped). HTTP/1.1 connections
     * always do so: they carry one request at a time, and one abandoned is closed.
     */
    public Builder<Req, Rep> lateAnswerWait(Duration wait) {
      Objects.requireNonNull(wait, "wait");
      if (wait.isNegative()) {
        throw new IllegalArgumentException("lateAnswerWait: " + wait + " (expected: >= 0)");
      }
      this.lateAnswerWait = wait;
      return this;
    }

    /** Sets the maximum frame size (framed) or response body size (HTTP); default 16 MiB. */
    public Builder<Req, Rep> maxFrameSize(int maxFrameSize) {
      if (maxFrameSize < 64) {
        throw new IllegalArgumentException("maxFrameSize: " + maxFrameSize
            + " (expected: >= 64)");
      }
      this.maxFrameSize = maxFrameSize;
      return this;
    }

    /** Adds a filter in front of the stack; filters run in the order added. */
    public Builder<Req, Rep> filter(Filter<Req, Rep> filter) {
      filters.add(Objects.requireNonNull(filter, "filter"));
      return this;
    }

    /** Sets the event-loop group; default the process-wide shared one (never shut down). */
    public Builder<Req, Rep> eventLoopGroup(EventLoopGroup group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /** Sets the time source of deadlines, detection and pools; default {@link Ticker#system()}. */
    public Builder<Req, Rep> ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Seeds the jitter of connection lifetimes and ejections; default from the clock. */
    public Builder<Req, Rep> seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Reports metrics under {@code ballast.client.} to a Micrometer {@code MeterRegistry}
     * (Micrometer is an optional dependency: pass the registry typed as Object so that this
     * class loads without it).
     *
     * @throws IllegalArgumentException if the object is not a {@code MeterRegistry}
     */
    public Builder<Req, Rep> meterRegistry(Object registry) {
      Objects.requireNonNull(registry, "registry");
      MicrometerClientMetrics.check(registry);
      this.meterRegistry = registry;
      return this;
    }

    /** Builds the client and opens pools for the endpoints (connections open on demand). */
    public BallastClient<Req, Rep> build() {
      return new BallastClient<>(this);
    }
  }
}

package dev.ballast.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.ClientClosedException;
import dev.ballast.netty.error.RequestRefusedException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.internal.FramedProtocol;
import dev.ballast.netty.internal.Http2Protocol;
import dev.ballast.netty.internal.HttpProtocol;
import dev.ballast.netty.internal.Protocol;
import dev.ballast.netty.internal.Stack;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryBudget;
import dev.ballast.netty.retry.RetryPolicy;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A client that balances calls over a set of endpoints, made of small modules in one order
 * (after Finagle's {@code StackClient}):
 *
 * <pre>
 * call -> [your filters] -> deadline -> retries (under a {@link RetryPolicy}) -> hedging
 *      -> label subset and balancer pick -> [your attempt filters] -> connection pool -> channel
 * each attempt's outcome -> {@link ResponseClassifier} -> balancer, outlier detection, metrics
 * </pre>
 *
 * <p>One deadline covers a call's attempts; a deadline frees the caller, not the server (see
 * {@link Builder#lateAnswerWait}). The classifier decides what each outcome is (an HTTP 503 is a
 * failure) before anything hears of it; retryable failures are retried on another endpoint while
 * the policy, its budget and the deadline allow; idempotent calls may be {@linkplain Hedging
 * hedged}; outlier detection ejects endpoints that keep failing.
 *
 * <pre>{@code
 * try (BallastClient<byte[], byte[]> client = BallastClient.framed()
 *     .endpoints("127.0.0.1:9001;weight=2,127.0.0.1:9002")
 *     .timeout(Duration.ofMillis(500))
 *     .build()) {
 *   byte[] reply = client.call("hello".getBytes()).get();
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@code call} never throws: every failure, a bad argument included, goes into
 * the returned future. Futures complete on the thread that ended the call: an event loop of the
 * client's group for answers, deadlines and timers, the caller's own thread for calls that fail
 * at once; a {@linkplain Builder#completionExecutor completion executor} keeps slow callbacks
 * off the event loops, where they would delay every client's deadlines.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public final class BallastClient<Req, Rep> implements Service<Req, Rep>, AutoCloseable {

  private final Stack<Req, Rep> stack;

  private BallastClient(Builder<Req, Rep> b) {
    this.stack = new Stack<>(b.spec());
  }

  Stack<Req, Rep> stack() {
    return stack;
  }

  /** Returns a builder of a client speaking the framed protocol ({@code byte[]} payloads). */
  public static Builder<byte[], byte[]> framed() {
    return new Builder<>(b -> new FramedProtocol(b.maxFrameSize,
        b.pool.maxInFlightPerConnection(), b.tls == null ? null : b.tls.context(List.of())));
  }

  /**
   * Returns a builder of an HTTP/1.1 client (RFC 9112): one request per connection at a time,
   * connections kept alive (closed after the pool's idle timeout, or when the server says
   * {@code Connection: close}); over TLS with {@link Builder#tls}.
   */
  public static Builder<HttpRequest, HttpResponse> http() {
    return new Builder<>(b -> new HttpProtocol(b.maxFrameSize,
        b.tls == null ? null : b.tls.context(List.of("http/1.1"))));
  }

  /**
   * Returns a builder of an HTTP/2 client (RFC 9113): requests are streams multiplexed on a
   * connection, up to the server's MAX_CONCURRENT_STREAMS and the pool's {@link
   * PoolConfig#maxInFlightPerConnection()}; without TLS it speaks h2c with prior knowledge, with
   * {@link Builder#tls} it needs the server to choose {@code h2} by ALPN. Requests a server
   * refuses unprocessed (above a GOAWAY's last stream id, or REFUSED_STREAM) are retried
   * elsewhere whatever their method ({@link RequestRefusedException}).
   */
  public static Builder<HttpRequest, HttpResponse> http2() {
    return new Builder<>(b -> new Http2Protocol(b.maxFrameSize,
        b.pool.maxInFlightPerConnection(),
        b.tls == null ? null : b.tls.context(List.of("h2"))));
  }

  /** Returns the client's name (a metrics tag); default {@code ballast}. */
  public String name() {
    return stack.name();
  }

  /** Calls with the default options: the client's timeout, no labels, no attributes. */
  @Override
  public CompletableFuture<Rep> call(Req request) {
    return stack.call(request, CallOptions.DEFAULT);
  }

  /**
   * Calls with per-call options. The returned future always completes: with the response, or
   * a {@link BallastException} (or lb-core's {@link NoAvailableEndpointException}) no later than
   * the deadline.
   */
  public CompletableFuture<Rep> call(Req request, CallOptions options) {
    return stack.call(request, options);
  }

  /**
   * Replaces the endpoint set (the one way code changes it; a {@linkplain Builder#source
   * source} pushes through the same path). New endpoints get a pool;
   * endpoints that stay keep their pool, load state and detection state (and take the new
   * weight and labels); removed endpoints stop taking requests and their pools drain, then close.
   * An empty collection empties the client (a source's empty listing does not: its feed keeps
   * the last set, see {@link dev.ballast.core.source.EndpointFeed}).
   *
   * @throws IllegalArgumentException if the balancer rejects the set, or, with label subsets,
   *     if the subsets' algorithm would reject it (the old set stays)
   * @throws IllegalStateException if the client is closed
   */
  public void updateEndpoints(Collection<Endpoint> endpoints) {
    stack.updateEndpoints(endpoints);
  }

  /** Returns the current endpoints, in update order. */
  public List<Endpoint> endpoints() {
    return stack.endpoints();
  }

  /**
   * Returns a future completed with the current endpoints (as {@link #endpoints()} gives them)
   * once they satisfy the condition: at once if they already do, else after the first update
   * ({@link #updateEndpoints} or the source's) that makes them. It completes exceptionally with
   * an {@link IllegalStateException} if the client closes first, and with what the condition
   * throws if it throws. It has no timeout of its own: bound the wait with {@code get(timeout)},
   * or with {@link CompletableFuture#orTimeout} or {@code cancel}, which also let the client drop
   * the future at the next update (a future abandoned after {@code get(timeout)} waits on).
   *
   * <pre>{@code
   * client.endpointsWhen(es -> es.size() >= 3).get(10, TimeUnit.SECONDS);
   * }</pre>
   *
   * <p>The condition runs on the thread that calls this method or that applies an update (the
   * caller of {@code updateEndpoints}, or the source's feed thread, which every client shares),
   * and may run on two at once when updates race: keep it cheap and stateless. A future already
   * met completes on the calling thread; one met by an update completes on the common pool, so
   * that the caller's stages never hold up an update. A set replaced before the condition saw
   * it may be skipped. Calls pay nothing for it: waiting futures are looked at only on updates.
   *
   * @param condition tested against the current endpoints
   * @throws NullPointerException if {@code condition} is null
   */
  public CompletableFuture<List<Endpoint>> endpointsWhen(
      Predicate<? super List<Endpoint>> condition) {
    return stack.endpointsWhen(condition);
  }

  /** Returns the feed of the endpoint source given to the builder, or null if none was. */
  public EndpointFeed feed() {
    return stack.feed();
  }

  /** Returns a snapshot of every current endpoint's counters. */
  public List<EndpointStats> stats() {
    return stack.stats();
  }

  /**
   * Returns what the client's balancer is doing now, as an immutable snapshot: every endpoint's
   * weight, slow-start ramp, latency estimate, requests in flight, availability, health and its
   * cause (outlier detection with its reason, active check, source), zone, priority and labels;
   * for composites (label subsets, priorities and localities) the routes in force level by
   * level; the source's last update. Built on each call from state the client keeps anyway:
   * calls pay nothing for it. Spring's {@code /actuator/ballast} serves it as JSON.
   */
  public BalancerStatus status() {
    return stack.status();
  }

  /** Returns the counts of calls, retries and hedges since the client was built. */
  public CallStats callStats() {
    return stack.callStats();
  }

  /**
   * Returns the balancer's algorithm name; {@code label_subset(<algorithm>)} when subsets are
   * configured.
   */
  public String balancerName() {
    return stack.balancerName();
  }

  /** Returns the retry budget. */
  public RetryBudget retryBudget() {
    return stack.retryBudget();
  }

  /**
   * Returns how many calls have started and not ended. A call leaves this count just before its
   * future completes.
   */
  public int inFlightCalls() {
    return stack.inFlightCalls();
  }

  /**
   * Returns how many requests were given up by their callers (at the deadline, or as the losing
   * attempt of a hedged call) and still await their late answer (each holds its node's pending
   * count and its connection's in-flight slot).
   */
  public int lateAnswersAwaited() {
    return stack.lateAnswersAwaited();
  }

  /**
   * Closes with the configured grace period and waits for it (at most the grace period plus
   * 10 s for channels to close). Called on one of the client's event loops, it starts the close
   * and returns at once: waiting there would stall the loop that the close needs.
   */
  @Override
  public void close() {
    stack.close();
  }

  /**
   * Stops new calls (they fail with {@link ClientClosedException}), lets in-flight calls finish
   * within {@code grace} (longer than 100 years counts as 100 years), fails the rest with {@link
   * ClientClosedException}, then closes every pool and channel. The future completes when every
   * channel has closed.
   */
  public CompletableFuture<Void> closeAsync(Duration grace) {
    return stack.closeAsync(grace);
  }

  /**
   * Builds a {@link BallastClient}. Defaults: no endpoints, {@link Algorithm#P2C_PEAK_EWMA}, {@link
   * BalancerConfig#defaults()}, timeout 5 s, {@link RetryPolicy#defaults()}, no hedging, the
   * protocol's {@link ResponseClassifier}, {@link PoolConfig#defaults()}, {@link
   * OutlierDetection#defaults()}, slow-request threshold 1 s, close grace 5 s, late-answer wait
   * 10 s, no label subsets, no filters, max frame (or HTTP body) size 16 MiB, no TLS, the
   * process-wide event loops, futures completed on the thread that ends the call. Durations
   * longer than 100 years count as 100 years.
   *
   * @param <Req> the request type
   * @param <Rep> the response type
   */
  public static final class Builder<Req, Rep> extends ClientSettings<Req, Rep, Builder<Req, Rep>> {

    private Builder(Function<ClientSettings<Req, Rep, ?>, Protocol<Req, Rep>> protocol) {
      super(protocol);
    }

    @Override
    Builder<Req, Rep> self() {
      return this;
    }

    /** Builds the client and opens pools for the endpoints (connections open on demand). */
    public BallastClient<Req, Rep> build() {
      return new BallastClient<>(this);
    }
  }
}

package dev.ballast.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Ticker;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.internal.FramedProtocol;
import dev.ballast.netty.internal.HttpProtocol;
import dev.ballast.netty.internal.Protocol;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

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
    this.stack = new Stack<>(b);
  }

  Stack<Req, Rep> stack() {
    return stack;
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
    return stack.name;
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
   * Replaces the endpoint set, the one way endpoints change. New endpoints get a pool;
   * endpoints that stay keep their pool, load state and detection state (and take the new
   * weight and labels); removed endpoints stop taking requests and their pools drain, then close.
   *
   * @throws IllegalArgumentException if the balancer rejects the set (the old set stays)
   * @throws IllegalStateException if the client is closed
   */
  public void updateEndpoints(Collection<Endpoint> endpoints) {
    stack.updateEndpoints(endpoints);
  }

  /** Returns the current endpoints, in update order. */
  public List<Endpoint> endpoints() {
    return stack.endpoints.endpoints();
  }

  /** Returns a snapshot of every current endpoint's counters. */
  public List<EndpointStats> stats() {
    return stack.endpoints.stats();
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
    return stack.endpoints.router.name();
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
   * 10 s, no label subsets, no filters, max frame (or HTTP body) size 16 MiB, the process-wide
   * event loops, futures completed on the thread that ends the call. Durations longer than 100
   * years count as 100 years.
   *
   * @param <Req> the request type
   * @param <Rep> the response type
   */
  public static final class Builder<Req, Rep> extends Settings<Req, Rep> {

    private Builder(Function<Settings<Req, Rep>, Protocol<Req, Rep>> protocol) {
      super(protocol);
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

    /** Sets any balancer factory, e.g. a composite one. */
    public Builder<Req, Rep> balancer(BalancerFactory factory) {
      this.balancerFactory = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /**
     * Routes each call by its {@linkplain CallOptions#withLabels labels} through lb-core's {@link
     * SubsetSelector}: to the endpoints whose labels have the call's values for one of the {@code
     * selectors} (label key sets), where the {@linkplain #balancer(Algorithm) balancer} picks;
     * subsets share the nodes, so an endpoint's load is seen in each. Calls matching no subset
     * get the {@code fallback} ({@link FallbackPolicy#DEFAULT_SUBSET} needs {@code
     * defaultSubset}); under NO_FALLBACK they fail with {@link NoAvailableEndpointException}
     * naming the labels. Default: no subsets (labels are ignored).
     *
     * @throws IllegalArgumentException if there is no selector, a selector has no key, an empty
     *     or repeated key, or is given twice, or if DEFAULT_SUBSET comes without labels
     */
    public Builder<Req, Rep> subsets(Collection<? extends Collection<String>> selectors,
        FallbackPolicy fallback, Map<String, String> defaultSubset) {
      this.subsetSelectors = Router.checkSubsets(selectors, fallback, defaultSubset);
      this.fallbackPolicy = fallback;
      this.defaultSubset = fallback == FallbackPolicy.DEFAULT_SUBSET
          ? Map.copyOf(defaultSubset) : null;
      return this;
    }

    /**
     * Lets call labels carry keys that are in no selector (Envoy's {@code allow_redundant_keys},
     * see {@link SubsetSelector.Builder#allowRedundantKeys}); only with {@link #subsets}; default
     * false.
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
      this.timeout = Durations.positive("timeout", timeout);
      return this;
    }

    /** Sets the retry policy (and its budget); default {@link RetryPolicy#defaults()}. */
    public Builder<Req, Rep> retryPolicy(RetryPolicy policy) {
      retry = Objects.requireNonNull(policy, "policy").toBuilder();
      return this;
    }

    /** Sets the retry policy's most attempts per call, the first included; default 3. */
    public Builder<Req, Rep> maxAttempts(int maxAttempts) {
      retry.maxAttempts(maxAttempts);
      return this;
    }

    /** Sets the retry policy's budget; default {@link RetryBudget#create()}. */
    public Builder<Req, Rep> retryBudget(RetryBudget budget) {
      retry.budget(budget);
      return this;
    }

    /** Hedges idempotent calls (backup requests); default none. */
    public Builder<Req, Rep> hedging(Hedging hedging) {
      this.hedging = Objects.requireNonNull(hedging, "hedging");
      return this;
    }

    /**
     * Replaces the response classifier; default {@link ResponseClassifier#framed()} or {@link
     * ResponseClassifier#http()}, by protocol.
     */
    public Builder<Req, Rep> classifier(ResponseClassifier<Req, Rep> classifier) {
      this.classifier = Objects.requireNonNull(classifier, "classifier");
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
      this.slowThreshold = Durations.nonNegative("slowRequestThreshold", threshold);
      return this;
    }

    /** Sets how long {@link #close()} lets in-flight calls finish; default 5 s. */
    public Builder<Req, Rep> closeGrace(Duration grace) {
      this.closeGrace = Durations.nonNegative("closeGrace", grace);
      return this;
    }

    /**
     * Sets how long a request written on a framed connection is still awaited after its caller
     * gave up (its deadline, or its hedge won); default 10 s. Until the answer comes (or the
     * connection closes, or this wait ends) it keeps its node's pending count and connection
     * slot, and the balancer then hears its true latency: a backend slow past the deadline is
     * seen as slow, not as fast as the deadline. Outlier detection and metrics count a deadline
     * when it passes. Zero gives up written requests at once, as HTTP/1.1 always does (one
     * request per connection: an abandoned one closes it).
     */
    public Builder<Req, Rep> lateAnswerWait(Duration wait) {
      this.lateAnswerWait = Durations.nonNegative("lateAnswerWait", wait);
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

    /** Adds a call-level filter in front of the stack; filters run in the order added. */
    public Builder<Req, Rep> filter(Filter<Req, Rep> filter) {
      filters.add(Objects.requireNonNull(filter, "filter"));
      return this;
    }

    /** Adds an attempt-level filter; they run in the order added, for every attempt. */
    public Builder<Req, Rep> attemptFilter(AttemptFilter<Req, Rep> filter) {
      attemptFilters.add(Objects.requireNonNull(filter, "filter"));
      return this;
    }

    /**
     * Completes every call's future on {@code executor} instead of the thread that ended the
     * call (an event loop, mostly), so that slow callbacks cannot delay other calls; default
     * none. If it rejects a task, the future completes on the ending thread.
     */
    public Builder<Req, Rep> completionExecutor(Executor executor) {
      this.completionExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** Sets the event-loop group; default the process-wide shared one (never shut down). */
    public Builder<Req, Rep> eventLoopGroup(EventLoopGroup group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /**
     * Sets the time source of deadlines, hedging, detection and pools; default {@link
     * Ticker#system()}. Retry backoff waits on the event loop's own clock.
     */
    public Builder<Req, Rep> ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Seeds the jitter of backoffs, connection lifetimes and ejections; default the clock. */
    public Builder<Req, Rep> seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Reports metrics under {@code ballast.client.} to a Micrometer {@code MeterRegistry}, typed
     * Object so that this class loads without Micrometer (an optional dependency).
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

package dev.ballast.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Ticker;
import dev.ballast.core.config.Values;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetConfig;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.internal.Protocol;
import dev.ballast.netty.internal.Transport;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The settings of a {@link BallastClient.Builder}, with their defaults, and their setters (each
 * checks its argument), as the {@link Stack} reads them. Every setter returns the builder.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 * @param <B> the builder's own type
 */
abstract class Settings<Req, Rep, B extends Settings<Req, Rep, B>> {
  final Function<Settings<Req, Rep, ?>, Protocol<Req, Rep>> protocol;
  String name = "ballast";
  List<Endpoint> endpoints = List.of();
  EndpointSource source;
  BalancerFactory balancerFactory = Algorithm.P2C_PEAK_EWMA::create;
  BalancerConfig balancerConfig = BalancerConfig.defaults();
  Algorithm algorithm = Algorithm.P2C_PEAK_EWMA;
  HashConfig hashConfig = HashConfig.defaults();
  SubsetConfig subsetConfig = SubsetConfig.defaults();
  // the values of the option groups that have no config object to read them back from
  final Map<String, Values> optionValues = new HashMap<>();
  Duration timeout = Duration.ofSeconds(5);
  RetryPolicy.Builder retry = RetryPolicy.builder();
  Hedging hedging;
  ResponseClassifier<Req, Rep> classifier;
  PoolConfig pool = PoolConfig.defaults();
  TlsConfig tls;
  OutlierDetection outlier = OutlierDetection.defaults();
  HealthCheck healthCheck = HealthCheck.disabled();
  Duration slowThreshold = Duration.ofSeconds(1);
  Duration closeGrace = Duration.ofSeconds(5);
  Duration lateAnswerWait = Duration.ofSeconds(10);
  int maxFrameSize = FrameDecoder.DEFAULT_MAX_FRAME_SIZE;
  EventLoopGroup group = Transport.sharedGroup();
  Executor completionExecutor;
  Ticker ticker = Ticker.system();
  long seed = System.nanoTime();
  final List<Filter<Req, Rep>> filters = new ArrayList<>();
  final List<AttemptFilter<Req, Rep>> attemptFilters = new ArrayList<>();
  Object meterRegistry;
  List<List<String>> subsetSelectors;
  FallbackPolicy fallbackPolicy = FallbackPolicy.NO_FALLBACK;
  Map<String, String> defaultSubset;
  boolean allowRedundantKeys;

  Settings(Function<Settings<Req, Rep, ?>, Protocol<Req, Rep>> protocol) {
    this.protocol = protocol;
  }

  abstract B self();

  /** Sets the client's name, used as the {@code client} metrics tag; default ballast. */
  public B name(String name) {
    this.name = Objects.requireNonNull(name, "name");
    return self();
  }

  /** Sets the initial endpoints; default none. */
  public B endpoints(Collection<Endpoint> endpoints) {
    this.endpoints = List.copyOf(endpoints);
    return self();
  }

  /** Sets the initial endpoints in the textual form, comma-separated. */
  public B endpoints(String endpoints) {
    return endpoints(Endpoint.parseList(endpoints));
  }

  /**
   * Takes the endpoints from a source (a registry, DNS) through an {@link EndpointFeed} with
   * its defaults: each push replaces or changes the set as {@link
   * BallastClient#updateEndpoints} does (a subset client gets deltas), malformed entries are
   * skipped, and an outage of the source keeps the last endpoints. Connection failures ask the
   * source for an early re-read. The client starts the source when built and closes it when
   * closed. Until the source's first endpoints arrive, a call waits for them (within its
   * deadline) rather than failing; if none have arrived within the client's {@linkplain #timeout
   * timeout} of the build, calls that find no endpoint fail at once again ({@code
   * NoAvailableEndpointException}). Default: none.
   */
  public B source(EndpointSource source) {
    this.source = Objects.requireNonNull(source, "source");
    return self();
  }

  /**
   * Takes the endpoints from the source of a target URI, found by its scheme on the class
   * path: {@code zookeeper://host:port/services/orders} (lb-discovery-zookeeper), {@code
   * etcd://host:port/services/orders/} (lb-discovery-etcd), {@code
   * ballast-dns:///orders.internal:8080} (lb-discovery-dns).
   *
   * @throws IllegalArgumentException if no source handles the scheme, or it rejects the target
   */
  public B source(String target) {
    return source(EndpointSourceProvider.open(target));
  }

  /** Sets the balancing algorithm; default {@link Algorithm#P2C_PEAK_EWMA}. */
  public B balancer(Algorithm algorithm) {
    return balancer(algorithm, HashConfig.defaults());
  }

  /**
   * Sets the balancing algorithm with the settings of the algorithms that pick by key ({@link
   * HashConfig}: ring sizes, Maglev's table size, bounded load, ketama's key hash); a call
   * gives its key with {@link CallOptions#withKey}.
   */
  public B balancer(Algorithm algorithm, HashConfig hashConfig) {
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(hashConfig, "hashConfig");
    this.algorithm = algorithm;
    this.hashConfig = hashConfig;
    this.balancerFactory = new BalancerFactory() {
      @Override
      public <T> Balancer<T> create(BalancerConfig config) {
        return algorithm.create(config, hashConfig);
      }
    };
    return self();
  }

  /** Sets the balancing algorithm by name, e.g. {@code vnswrr} (see {@link Algorithm}). */
  public B balancer(String algorithm) {
    return balancer(Algorithm.fromName(algorithm));
  }

  /** Sets any balancer factory, e.g. a composite one. */
  public B balancer(BalancerFactory factory) {
    this.balancerFactory = Objects.requireNonNull(factory, "factory");
    return self();
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
  public B subsets(Collection<? extends Collection<String>> selectors,
      FallbackPolicy fallback, Map<String, String> defaultSubset) {
    this.subsetSelectors = Router.checkSubsets(selectors, fallback, defaultSubset);
    this.fallbackPolicy = fallback;
    this.defaultSubset = fallback == FallbackPolicy.DEFAULT_SUBSET
        ? Map.copyOf(defaultSubset) : null;
    return self();
  }

  /**
   * Lets call labels carry keys that are in no selector (Envoy's {@code allow_redundant_keys},
   * see {@link SubsetSelector.Builder#allowRedundantKeys}); only with {@link #subsets}; default
   * false.
   */
  /** Sets the label subsets from their options ({@link SubsetConfig}); off without selectors. */
  public B subsets(SubsetConfig subsets) {
    this.subsetConfig = Objects.requireNonNull(subsets, "subsets");
    this.subsetSelectors = null;
    if (subsets.enabled()) {
      subsets(subsets.selectors(), subsets.fallbackPolicy(),
          subsets.defaultSubset() == null ? Map.of() : subsets.defaultSubset());
    }
    return subsetsAllowRedundantKeys(subsets.allowRedundantKeys());
  }

  public B subsetsAllowRedundantKeys(boolean allow) {
    this.allowRedundantKeys = allow;
    return self();
  }

  /** Sets the balancer's settings; default {@link BalancerConfig#defaults()}. */
  public B balancerConfig(BalancerConfig config) {
    this.balancerConfig = Objects.requireNonNull(config, "config");
    return self();
  }

  /** Sets the per-call deadline, all attempts included; default 5 s. */
  public B timeout(Duration timeout) {
    this.timeout = Durations.positive("timeout", timeout);
    return self();
  }

  /** Sets the retry policy (and its budget); default {@link RetryPolicy#defaults()}. */
  public B retryPolicy(RetryPolicy policy) {
    retry = Objects.requireNonNull(policy, "policy").toBuilder();
    return self();
  }

  /** Sets the retry policy's most attempts per call, the first included; default 3. */
  public B maxAttempts(int maxAttempts) {
    retry.maxAttempts(maxAttempts);
    return self();
  }

  /** Sets the retry policy's budget; default {@link RetryBudget#create()}. */
  public B retryBudget(RetryBudget budget) {
    retry.budget(budget);
    return self();
  }

  /** Hedges idempotent calls (backup requests); default none. */
  /** Sets how long a retry waits; default {@link Backoff#none()}, at once. */
  public B retryBackoff(Backoff backoff) {
    retry.backoff(backoff);
    return self();
  }

  B hedgingOrNone(Hedging hedging) {
    this.hedging = hedging;
    return self();
  }

  B tlsOrNone(TlsConfig tls) {
    this.tls = tls;
    return self();
  }

  Values values(String group) {
    return optionValues.getOrDefault(group, new Values());
  }

  B values(String group, Values values) {
    optionValues.put(group, values);
    return self();
  }

  public B hedging(Hedging hedging) {
    this.hedging = Objects.requireNonNull(hedging, "hedging");
    return self();
  }

  /**
   * Replaces the response classifier; default {@link ResponseClassifier#framed()} or {@link
   * ResponseClassifier#http()}, by protocol.
   */
  public B classifier(ResponseClassifier<Req, Rep> classifier) {
    this.classifier = Objects.requireNonNull(classifier, "classifier");
    return self();
  }

  /** Sets the per-endpoint pool settings; default {@link PoolConfig#defaults()}. */
  public B pool(PoolConfig pool) {
    this.pool = Objects.requireNonNull(pool, "pool");
    return self();
  }

  /**
   * Connects over TLS with these settings: the server's certificate is checked against the
   * trust material and the endpoint's host name as written (also sent as SNI); HTTP/2 chooses
   * {@code h2} by ALPN. A failed handshake (an untrusted certificate, or one for another host
   * name) fails the attempt with {@link TlsHandshakeException} naming the endpoint, as never
   * sent. Default: plain TCP.
   */
  public B tls(TlsConfig tls) {
    this.tls = Objects.requireNonNull(tls, "tls");
    return self();
  }

  /** Sets active health checks of the endpoints; default {@link HealthCheck#disabled()}. */
  public B healthCheck(HealthCheck check) {
    this.healthCheck = Objects.requireNonNull(check, "healthCheck");
    return self();
  }

  /** Sets outlier detection; default {@link OutlierDetection#defaults()}. */
  public B outlierDetection(OutlierDetection outlier) {
    this.outlier = Objects.requireNonNull(outlier, "outlier");
    return self();
  }

  /** Sets the latency at or above which an attempt is logged as slow; default 1 s. */
  public B slowRequestThreshold(Duration threshold) {
    this.slowThreshold = Durations.nonNegative("slowRequestThreshold", threshold);
    return self();
  }

  /** Sets how long {@link BallastClient#close()} lets in-flight calls finish; default 5 s. */
  public B closeGrace(Duration grace) {
    this.closeGrace = Durations.nonNegative("closeGrace", grace);
    return self();
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
  public B lateAnswerWait(Duration wait) {
    this.lateAnswerWait = Durations.nonNegative("lateAnswerWait", wait);
    return self();
  }

  /**
   * Sets the maximum frame size (framed) or response body size (HTTP; a bigger body fails the
   * call with {@link ProtocolErrorException}); default 16 MiB.
   */
  public B maxFrameSize(int maxFrameSize) {
    if (maxFrameSize < 64) {
      throw new IllegalArgumentException("maxFrameSize: " + maxFrameSize
          + " (expected: >= 64)");
    }
    this.maxFrameSize = maxFrameSize;
    return self();
  }

  /** Adds a call-level filter in front of the stack; filters run in the order added. */
  public B filter(Filter<Req, Rep> filter) {
    filters.add(Objects.requireNonNull(filter, "filter"));
    return self();
  }

  /** Adds an attempt-level filter; they run in the order added, for every attempt. */
  public B attemptFilter(AttemptFilter<Req, Rep> filter) {
    attemptFilters.add(Objects.requireNonNull(filter, "filter"));
    return self();
  }

  /**
   * Completes every call's future on {@code executor} instead of the thread that ended the
   * call (an event loop, mostly), so that slow callbacks cannot delay other calls; default
   * none. If it rejects a task or throws, the future completes on the ending thread.
   */
  public B completionExecutor(Executor executor) {
    this.completionExecutor = Objects.requireNonNull(executor, "executor");
    return self();
  }

  /** Sets the event-loop group; default the process-wide shared one (never shut down). */
  public B eventLoopGroup(EventLoopGroup group) {
    this.group = Objects.requireNonNull(group, "group");
    return self();
  }

  /**
   * Sets the time source of deadlines, hedging, detection and pools; default {@link
   * Ticker#system()}. Retry backoff waits on the event loop's own clock.
   */
  public B ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return self();
  }

  /** Seeds the jitter of backoffs, connection lifetimes and ejections; default the clock. */
  public B seed(long seed) {
    this.seed = seed;
    return self();
  }

  /**
   * Reports metrics under {@code ballast.client.} to a Micrometer {@code MeterRegistry}, typed
   * Object so that this class loads without Micrometer (an optional dependency).
   *
   * @throws IllegalArgumentException if the object is not a {@code MeterRegistry}
   */
  public B meterRegistry(Object registry) {
    Objects.requireNonNull(registry, "registry");
    MicrometerClientMetrics.check(registry);
    this.meterRegistry = registry;
    return self();
  }
}


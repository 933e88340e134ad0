package dev.ballast.netty;

import dev.ballast.core.Ticker;
import dev.ballast.core.config.Values;
import dev.ballast.netty.error.ProtocolErrorException;
import dev.ballast.netty.error.TlsHandshakeException;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.internal.Chain;
import dev.ballast.netty.internal.ClientSpec;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.internal.MicrometerClientMetrics;
import dev.ballast.netty.internal.Protocol;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.retry.Backoff;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryBudget;
import dev.ballast.netty.retry.RetryPolicy;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
/**
 * How a {@link BallastClient}'s calls go: the timeout, retries and hedging, the classifier, the
 * pool, TLS, outlier detection, filters and modules, threads and clocks, metrics; each with its
 * default, every setter checks its argument and returns the builder. {@link EndpointSettings}
 * holds where calls go; not meant to be extended outside this package.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 * @param <B> the builder's own type
 */
public abstract class ClientSettings<Req, Rep, B extends ClientSettings<Req, Rep, B>>
    extends EndpointSettings<Req, Rep, B> {
  final Function<ClientSettings<Req, Rep, ?>, Protocol<Req, Rep>> protocol;
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
  final ModuleOrder<Req, Rep> modules = new ModuleOrder<>();
  Chain.Trace trace; // tests only

  ClientSettings(Function<ClientSettings<Req, Rep, ?>, Protocol<Req, Rep>> protocol) {
    this.protocol = protocol;
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
   * Edits the order of the client's modules: removes, moves or adds one by {@link Role} (see
   * {@link ModuleOrder} for the default order and the rules each edit is checked against).
   * Default: {@link ModuleOrder}'s order, every built-in module present.
   *
   * @throws IllegalArgumentException if an edit breaks a rule (the order is then as before it)
   */
  public B modules(Consumer<ModuleOrder<Req, Rep>> edit) {
    Objects.requireNonNull(edit, "edit").accept(modules);
    return self();
  }

  /** Records the modules each call and attempt enter and leave (tests only). */
  B trace(Chain.Trace trace) {
    this.trace = trace;
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

  /** The settings as the engine takes them. */
  ClientSpec<Req, Rep> spec() {
    return new ClientSpec<>(name, protocol.apply(this), endpoints, source, balancerFactory,
        balancerConfig, subsets,
        timeout, retry.build(), hedging, classifier, pool, outlier, healthCheck, slowThreshold,
        closeGrace, lateAnswerWait, group, completionExecutor, ticker, seed, List.copyOf(filters),
        List.copyOf(attemptFilters), meterRegistry, modules.roles(), modules.added(), trace);
  }
}

package dev.ballast.netty;

import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.core.locality.LocalityConfig;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.retry.Backoff;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryBudget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A client's options by name: {@link #CLIENT} holds every option a {@link BallastClient.Builder}
 * takes as a value (not code: classifiers, filters, executors), under the same names in every
 * front end (Spring's {@code ballast.clients.<name>.pool.max-connections} is {@code
 * pool.maxConnections}). Decoding a map into a builder sets each option with the builder's own
 * setter, so its default and its check are the builder's:
 *
 * <pre>{@code
 * BallastClient.Builder<HttpRequest, HttpResponse> b = BallastClient.http2();
 * ClientOptions.CLIENT.apply(b, Map.of("balancer", "p2c-peak-ewma", "timeout", "2s",
 *     "hedging", Map.of("percentile", 0.95), "tls", Map.of("enabled", true)));
 * }</pre>
 *
 * <p>Top level: {@code endpoints}, {@code balancer}, {@code timeout}, {@code maxAttempts},
 * {@code slowRequestThreshold}, {@code closeGrace}, {@code lateAnswerWait}, {@code
 * maxFrameSize}, lb-core's {@link CoreOptions#BALANCER} and {@link CoreOptions#HASH} options,
 * and {@link LoadOptions#WEIGHTED_ROUND_ROBIN} (gRPC's {@code weighted_round_robin} names:
 * {@code blackoutPeriod}, {@code weightUpdatePeriod}...; see {@link
 * EndpointSettings#loadReports}); groups: {@code subset.} ({@link CoreOptions#SUBSET}), {@code
 * locality.} ({@link CoreOptions#LOCALITY}: any of them turns priorities and localities on,
 * see {@link BalancerFactory#byLocality}), {@code pool.} ({@link #POOL}), {@code
 * outlierDetection.} ({@link #OUTLIER_DETECTION}), {@code healthCheck.} ({@link
 * HealthCheck#OPTIONS}), {@code retryBudget.} ({@link #RETRY_BUDGET}),
 * {@code retryBackoff.} ({@link #RETRY_BACKOFF}), {@code hedging.} ({@link #HEDGING}), {@code
 * tls.} ({@link #TLS}).
 */
public final class ClientOptions {

  private ClientOptions() {}

  /** The options of {@link PoolConfig}, each with its builder's default and check. */
  public static final OptionSet<PoolConfig, PoolConfig.Builder> POOL = OptionSet.of("pool",
      PoolConfig::builder, PoolConfig.Builder::build, List.of(
          Option.of("connectTimeout", ValueType.DURATION, PoolConfig::connectTimeout,
              PoolConfig.Builder::connectTimeout, "500ms", "0s"),
          Option.of("minConnections", ValueType.INT, PoolConfig::minConnections,
              PoolConfig.Builder::minConnections, "1", "-1"),
          Option.of("maxConnections", ValueType.INT, PoolConfig::maxConnections,
              PoolConfig.Builder::maxConnections, "16", "0"),
          Option.of("maxInFlightPerConnection", ValueType.INT,
              PoolConfig::maxInFlightPerConnection, PoolConfig.Builder::maxInFlightPerConnection,
              "100", "0"),
          Option.of("maxPendingAcquires", ValueType.INT, PoolConfig::maxPendingAcquires,
              PoolConfig.Builder::maxPendingAcquires, "10", "0"),
          Option.of("acquireTimeout", ValueType.DURATION, PoolConfig::acquireTimeout,
              PoolConfig.Builder::acquireTimeout, "1s", "0s"),
          Option.of("idleTimeout", ValueType.DURATION, PoolConfig::idleTimeout,
              PoolConfig.Builder::idleTimeout, "30s", "0s"),
          Option.of("maxLifetime", ValueType.DURATION, PoolConfig::maxLifetime,
              PoolConfig.Builder::maxLifetime, "10m", "-1s"),
          Option.of("lifetimeJitter", ValueType.DOUBLE, PoolConfig::lifetimeJitter,
              PoolConfig.Builder::lifetimeJitter, "0.2", "2")));

  /** The options of {@link OutlierDetection}, each with its builder's default and check. */
  public static final OptionSet<OutlierDetection, OutlierDetection.Builder> OUTLIER_DETECTION =
      OptionSet.of("outlierDetection", OutlierDetection::builder,
          OutlierDetection.Builder::build, List.of(
              Option.of("enabled", ValueType.BOOLEAN, OutlierDetection::enabled,
                  OutlierDetection.Builder::enabled, "false", "off"),
              Option.of("consecutiveFailures", ValueType.INT,
                  OutlierDetection::consecutiveFailures,
                  OutlierDetection.Builder::consecutiveFailures, "3", "0"),
              Option.of("successRateThreshold", ValueType.DOUBLE,
                  OutlierDetection::successRateThreshold,
                  OutlierDetection.Builder::successRateThreshold, "0.8", "1.5"),
              Option.of("successRateMinRequests", ValueType.INT,
                  OutlierDetection::successRateMinRequests,
                  OutlierDetection.Builder::successRateMinRequests, "50", "0"),
              Option.of("interval", ValueType.DURATION, OutlierDetection::interval,
                  OutlierDetection.Builder::interval, "5s", "0s"),
              Option.of("baseEjectionTime", ValueType.DURATION,
                  OutlierDetection::baseEjectionTime,
                  OutlierDetection.Builder::baseEjectionTime, "10s", "0s"),
              Option.of("maxEjectionTime", ValueType.DURATION, OutlierDetection::maxEjectionTime,
                  OutlierDetection.Builder::maxEjectionTime, "10m", "0s"),
              Option.of("jitter", ValueType.DOUBLE, OutlierDetection::jitter,
                  OutlierDetection.Builder::jitter, "0.2", "2"),
              Option.of("maxEjectionPercent", ValueType.INT,
                  OutlierDetection::maxEjectionPercent,
                  OutlierDetection.Builder::maxEjectionPercent, "20", "101")));

  /**
   * The retry budget's options (Finagle's defaults): {@code percent} of calls that may be
   * retried (20, 0 to 100), {@code minRetriesPerSecond} (10, &gt;= 0), {@code ttl} (10s, 1s to
   * 60s).
   */
  public static final OptionSet<Values, Values> RETRY_BUDGET = OptionSet.ofValues(
      "retryBudget", ClientOptions::retryBudget, List.of(
          Values.option("percent", ValueType.DOUBLE, 20.0, "50", "101"),
          Values.option("minRetriesPerSecond", ValueType.INT, 10, "2", "-1"),
          Values.option("ttl", ValueType.DURATION, Duration.ofSeconds(10), "20s", "0.5s")));

  /**
   * The retry backoff's options: exponential with full jitter from {@code base} (25ms; 0s
   * retries at once) up to {@code max} (250ms), Envoy's defaults; see {@link
   * Backoff#exponential}.
   */
  public static final OptionSet<Values, Values> RETRY_BACKOFF = OptionSet.ofValues(
      "retryBackoff", ClientOptions::backoff, List.of(
          Values.option("base", ValueType.DURATION, Duration.ofMillis(25), "0s", "-1s"),
          Values.option("max", ValueType.DURATION, Duration.ofMillis(250), "2s", "0s")));

  /**
   * The hedging options (off by default): a backup request after a fixed {@code delay}, or after
   * the {@code percentile} (in (0, 1)) of recent latencies, not both; at most {@code budget} of
   * the calls (0.02, in (0, 1]); see {@link Hedging}.
   */
  public static final OptionSet<Values, Values> HEDGING = OptionSet.ofValues(
      "hedging", ClientOptions::hedging, List.of(
          Values.option("delay", ValueType.DURATION, null, "50ms", "-1ms"),
          Values.option("percentile", ValueType.DOUBLE, null, "0.95", "1.5"),
          Values.option("budget", ValueType.DOUBLE, 0.02, "0.1", "0")));

  /**
   * The TLS options (off by default): {@code enabled}; {@code trustCertificates}, a PEM file of
   * the authorities to trust (default: the JDK's); {@code certificateChain} and {@code
   * privateKey}, PEM files of the client's own certificate (both or neither); see {@link
   * TlsConfig}.
   */
  public static final OptionSet<Values, Values> TLS = OptionSet.ofValues(
      "tls", ClientOptions::tls, List.of(
          Values.option("enabled", ValueType.BOOLEAN, false, "true", "yes"),
          Values.option("trustCertificates", ValueType.STRING, null, null, "/no/such.pem"),
          Values.option("certificateChain", ValueType.STRING, null, null, "/no/such.pem"),
          Values.option("privateKey", ValueType.STRING, null, null, "/no/such.pem")));

  /** Every option of a client builder; see the class comment. */
  public static final OptionSet<BallastClient.Builder<?, ?>, BallastClient.Builder<?, ?>> CLIENT =
      OptionSet.<BallastClient.Builder<?, ?>, BallastClient.Builder<?, ?>>of("client",
          () -> BallastClient.framed(), b -> b, List.of(
          Option.of("endpoints", CoreOptions.ENDPOINTS, b -> b.endpoints,
              (b, e) -> b.endpoints(e), List.of("10.0.0.1:7000;weight=3;zone=a"),
              List.of("10.0.0.1")),
          Option.of("balancer", CoreOptions.POLICY, b -> b.policyName,
              (b, a) -> b.balancer(a), "ring-hash", "p2c-peak-ewmaa"),
          Option.of("policy", CoreOptions.POLICY_OPTIONS, b -> b.policyOptions,
              (b, m) -> b.policyOptions(m), Map.of(), Map.of("percent", "5")),
          Option.of("timeout", ValueType.DURATION, b -> b.timeout, (b, d) -> b.timeout(d),
              "2s", "0s"),
          Option.of("maxAttempts", ValueType.INT, b -> b.retry.build().maxAttempts(),
              (b, n) -> b.maxAttempts(n), "1", "0"),
          Option.of("slowRequestThreshold", ValueType.DURATION, b -> b.slowThreshold,
              (b, d) -> b.slowRequestThreshold(d), "250ms", "-1s"),
          Option.of("closeGrace", ValueType.DURATION, b -> b.closeGrace,
              (b, d) -> b.closeGrace(d), "1s", "-1s"),
          Option.of("lateAnswerWait", ValueType.DURATION, b -> b.lateAnswerWait,
              (b, d) -> b.lateAnswerWait(d), "0s", "-1s"),
          Option.of("maxFrameSize", ValueType.BYTES, b -> b.maxFrameSize,
              (b, n) -> b.maxFrameSize(n), "64KB", "32B")))
      .with("", CoreOptions.BALANCER, b -> b.balancerConfig, (b, c) -> b.balancerConfig(c))
      .with("", CoreOptions.HASH, b -> b.hashConfig, (b, h) -> b.hashOptions(h))
      .with("", LoadOptions.WEIGHTED_ROUND_ROBIN, b -> b.loadReports,
          (b, w) -> b.loadReports(w))
      .with("subset.", CoreOptions.SUBSET, b -> b.subsets, (b, s) -> b.subsets(s))
      .with("locality.", CoreOptions.LOCALITY,
          b -> b.values("locality").get("", LocalityConfig.defaults()), ClientOptions::locality)
      .with("pool.", POOL, b -> b.pool, (b, p) -> b.pool(p))
      .with("outlierDetection.", OUTLIER_DETECTION, b -> b.outlier,
          (b, o) -> b.outlierDetection(o))
      .with("healthCheck.", HealthCheck.OPTIONS, b -> b.healthCheck, (b, h) -> b.healthCheck(h))
      .with("retryBudget.", RETRY_BUDGET, b -> b.values("retryBudget"),
          (b, v) -> b.values("retryBudget", v).retryBudget(retryBudget(v)))
      .with("retryBackoff.", RETRY_BACKOFF, b -> b.values("retryBackoff"),
          (b, v) -> b.values("retryBackoff", v).retryBackoff(backoff(v)))
      .with("hedging.", HEDGING, b -> b.values("hedging"),
          (b, v) -> b.values("hedging", v).hedgingOrNone(hedging(v)))
      .with("tls.", TLS, b -> b.values("tls"), (b, v) -> b.values("tls", v).tlsOrNone(tls(v)));

  /** Wraps the client's balancer factory, once, in priorities and localities. */
  private static void locality(BallastClient.Builder<?, ?> b, LocalityConfig c) {
    BalancerFactory children = b.values("locality").get("children", b.balancerFactory);
    b.values("locality", new Values().put("", c).put("children", children))
        .balancer(children.byLocality(c));
  }

  private static RetryBudget retryBudget(Values v) {
    double percent = v.get("percent", 20.0);
    if (!(percent >= 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent: " + percent + " (expected: 0 to 100)");
    }
    int min = v.get("minRetriesPerSecond", 10);
    if (min < 0) {
      throw new IllegalArgumentException("minRetriesPerSecond: " + min + " (expected: >= 0)");
    }
    return RetryBudget.create(v.get("ttl", Duration.ofSeconds(10)),
        min, percent / 100, dev.ballast.core.Ticker.system());
  }

  private static Backoff backoff(Values v) {
    Duration base = v.get("base", Duration.ofMillis(25));
    Duration max = v.get("max", Duration.ofMillis(250));
    if (base.isNegative()) {
      throw new IllegalArgumentException("base: " + base + " (expected: >= 0, 0 for none)");
    }
    return base.isZero() ? Backoff.none() : Backoff.exponential(base, max);
  }

  private static Hedging hedging(Values v) {
    Duration delay = v.get("delay", null);
    Double percentile = v.get("percentile", null);
    if (delay != null && percentile != null) {
      throw new IllegalArgumentException("percentile: " + percentile
          + " (expected: a delay or a percentile, not both)");
    }
    Hedging h = delay != null ? Hedging.after(delay)
        : percentile != null ? Hedging.atPercentile(percentile) : null;
    Hedging checked = (h == null ? Hedging.after(Duration.ZERO) : h)
        .withBudget(v.get("budget", 0.02));
    return h == null ? null : checked;
  }

  private static TlsConfig tls(Values v) {
    TlsConfig.Builder b = TlsConfig.builder();
    String trust = v.get("trustCertificates", null);
    String chain = v.get("certificateChain", null);
    String key = v.get("privateKey", null);
    if (trust != null) {
      b.trustCertificates(Path.of(trust));
    }
    if ((chain == null) != (key == null)) {
      throw new IllegalArgumentException(chain == null
          ? "privateKey: " + key + " (expected: a certificateChain with it)"
          : "certificateChain: " + chain + " (expected: a privateKey with it)");
    }
    if (chain != null) {
      b.keyPair(Path.of(chain), Path.of(key));
    }
    TlsConfig tls = b.build();
    return v.get("enabled", false) ? tls : null;
  }
}

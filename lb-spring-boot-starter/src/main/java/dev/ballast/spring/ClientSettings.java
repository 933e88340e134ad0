package dev.ballast.spring;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.spring.internal.PropertyChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checked, immutable settings of one named client, made from {@link BallastProperties}: the
 * endpoints parsed, the balancer resolved, every duration and number within its range.
 *
 * @param name the client's name (the key under {@code ballast.clients.})
 * @param endpoints the endpoints, in the order given
 * @param algorithm the balancing algorithm; default {@link Algorithm#P2C_PEAK_EWMA}
 * @param balancerConfig the balancer's settings (decay time, default RTT, max effort, panic pick,
 *     max fails)
 * @param timeout the deadline of one call, retries included; default 5 s
 * @param maxAttempts the most attempts per call, the first included; default 3
 * @param slowRequestThreshold attempts at least this slow are logged; default 1 s
 * @param closeGrace how long closing lets calls in flight finish; default 5 s
 * @param lateAnswerWait how long a request past its deadline keeps its node busy awaiting its
 *     answer; default 10 s, 0 gives it up at the deadline
 * @param protocol the protocol spoken to the endpoints; default {@link Protocol#FRAMED}
 * @param maxFrameSize the largest frame (framed) or response body (http) in bytes; default 16 MiB
 * @param subset the label-subset settings
 * @param pool the per-endpoint connection-pool settings
 * @param retryBudget the retry-budget settings
 * @param outlierDetection the outlier-detection settings
 * @param source the target of the endpoint source ({@code zookeeper://}, {@code etcd://},
 *     {@code ballast-dns://}) when the endpoints come from discovery, else null
 * @param hash the settings of balancing by key (balancer {@code ring-hash}, {@code ketama} or
 *     {@code maglev})
 */
public record ClientSettings(
    String name,
    List<Endpoint> endpoints,
    Algorithm algorithm,
    BalancerConfig balancerConfig,
    Duration timeout,
    int maxAttempts,
    Duration slowRequestThreshold,
    Duration closeGrace,
    Duration lateAnswerWait,
    Protocol protocol,
    int maxFrameSize,
    Subset subset,
    Pool pool,
    RetryBudget retryBudget,
    OutlierDetection outlierDetection,
    String source,
    HashSettings hash) {

  private static final String ENDPOINT_FORM =
      "host:port[;weight=N][;key=value...], e.g. 10.0.0.1:7000;weight=3;zone=us-east";
  private static final String BALANCER_FORM =
      "one of vnswrr, swrr, round-robin, weighted-random, least-loaded, p2c-peak-ewma,"
          + " aperture, ring-hash, ketama, maglev";

  /** The protocol a client speaks to its endpoints. */
  public enum Protocol {
    /** Ballast's length-prefixed framed binary protocol with request ids (lb-netty). */
    FRAMED,
    /** HTTP/1.1. */
    HTTP,
    /**
     * gRPC only: the endpoints feed channels targeting {@code ballast://<name>}, and no lb-netty
     * client is made (its pool, retry and timeout settings do not apply).
     */
    GRPC
  }

  /**
   * Label-subset settings.
   *
   * @param selectors the selectors, each a set of label keys; empty means no subsets
   * @param fallbackPolicy what an unmatched call gets; default {@link FallbackPolicy#NO_FALLBACK}
   * @param defaultSubset the default subset's labels; empty by default
   * @param allowRedundantKeys whether request labels outside every selector are ignored; default
   *     false
   * @param headerPrefix gRPC: the prefix of the call headers carrying request labels; default
   *     {@code x-lb-}
   */
  public record Subset(
      List<Set<String>> selectors,
      FallbackPolicy fallbackPolicy,
      Map<String, String> defaultSubset,
      boolean allowRedundantKeys,
      String headerPrefix) {

    /** Returns whether any selector is configured. */
    public boolean enabled() {
      return !selectors.isEmpty();
    }
  }

  /**
   * Per-endpoint connection-pool settings (defaults in {@link BallastProperties.Pool}).
   *
   * @param connectTimeout how long opening a connection may take; default 2 s
   * @param minConnections connections kept when idle; default 0
   * @param maxConnections most connections; default 8
   * @param maxInFlightPerConnection in-flight cap per multiplexed connection; default 256
   * @param maxPendingAcquires bound of waiting acquires; default 1024
   * @param acquireTimeout how long a call may wait for a connection; default 5 s
   * @param idleTimeout how long an unused connection stays open; default 60 s
   * @param maxLifetime most a connection lives, zero for forever; default 30 min
   */
  public record Pool(
      Duration connectTimeout,
      int minConnections,
      int maxConnections,
      int maxInFlightPerConnection,
      int maxPendingAcquires,
      Duration acquireTimeout,
      Duration idleTimeout,
      Duration maxLifetime) {}

  /**
   * Retry-budget settings (Finagle's defaults).
   *
   * @param percent the share of calls that may be retried, in percent; default 20
   * @param minRetriesPerSecond retries allowed per second whatever the traffic; default 10
   * @param ttl how long a call counts towards the budget; default 10 s
   */
  public record RetryBudget(double percent, int minRetriesPerSecond, Duration ttl) {}

  /**
   * Outlier-detection settings.
   *
   * @param enabled whether detection is on; default true
   * @param consecutiveFailures failures in a row that eject; default 5
   * @param successRateThreshold success rate below which an endpoint is ejected, 0 for never;
   *     default 0.5
   * @param successRateMinRequests calls an interval needs before its success rate counts;
   *     default 20
   * @param interval the success-rate window; default 10 s
   * @param baseEjectionTime the first ejection's duration; default 5 s
   * @param maxEjectionTime the longest ejection; default 5 min
   * @param maxEjectionPercent most endpoints ejected at once, in percent; default 50
   */
  public record OutlierDetection(
      boolean enabled,
      int consecutiveFailures,
      double successRateThreshold,
      int successRateMinRequests,
      Duration interval,
      Duration baseEjectionTime,
      Duration maxEjectionTime,
      int maxEjectionPercent) {}

  /**
   * Checks one client's properties and makes its settings.
   *
   * @param name the client's name
   * @param prefix the properties' prefix, for messages, e.g. {@code ballast.clients.orders}
   * @param client the bound properties
   * @param requireEndpoints whether an empty endpoint list is an error
   * @throws InvalidBallastPropertyException naming the first bad property
   */
  public static ClientSettings from(
      String name, String prefix, BallastProperties.Client client, boolean requireEndpoints) {
    PropertyChecks p = new PropertyChecks(prefix);
    String source = DiscoverySettings.target(p, client.getDiscovery());
    List<Endpoint> endpoints =
        endpoints(p, client.getEndpoints(), requireEndpoints && source == null);
    if (source != null && !endpoints.isEmpty()) {
      throw p.invalid("discovery", source, "endpoints given too",
          "either endpoints or a discovery source");
    }
    Algorithm algorithm = algorithm(p, "balancer", client.getBalancer());
    BalancerConfig config = BalancerConfig.builder()
        .decayTime(p.positive("decay-time", client.getDecayTime()))
        .defaultRtt(p.notNegative("default-rtt", client.getDefaultRtt()))
        .maxEffort(p.atLeast("max-effort", client.getMaxEffort(), 1))
        .panicPick(client.isPanicPick())
        .maxFails(p.atLeast("max-fails", client.getMaxFails(), 1))
        .failurePenalty(failurePenalty(p, client.getFailurePenalty()))
        .slowStart(p.notNegative("slow-start.window", client.getSlowStart().getWindow()),
            aggression(p, client.getSlowStart().getAggression()),
            percent(p, client.getSlowStart().getMinWeightPercent()))
        .apertureCoordinate(clientIndex(p, client.getAperture()),
            client.getAperture().getClientCount())
        .build();
    Duration timeout = p.positive("timeout", client.getTimeout());
    Protocol protocol = p.oneOf("protocol", client.getProtocol(), Protocol.class);
    int maxAttempts = p.atLeast("max-attempts", client.getMaxAttempts(), 1);
    Duration slow = p.notNegative("slow-request-threshold", client.getSlowRequestThreshold());
    Duration grace = p.notNegative("close-grace", client.getCloseGrace());
    Duration lateWait = p.notNegative("late-answer-wait", client.getLateAnswerWait());
    int maxFrameSize = p.bytes("max-frame-size", client.getMaxFrameSize(), 64);
    return new ClientSettings(name, endpoints, algorithm, config, timeout, maxAttempts, slow,
        grace, lateWait, protocol, maxFrameSize,
        subset(p, client.getSubset()), pool(p, client.getPool()),
        retryBudget(p, client.getRetryBudget()), outlier(p, client.getOutlierDetection()),
        source, hash(p, algorithm, client));
  }

  private static HashSettings hash(PropertyChecks p, Algorithm algorithm,
      BallastProperties.Client client) {
    HashSettings hash = HashSettings.from(p, client.getHash());
    List<String> selectors = client.getSubset().getSelectors();
    if (algorithm.picksByKey() && selectors != null && !selectors.isEmpty()) {
      // a subset's child balancer is given no key
      throw p.invalid("balancer", client.getBalancer(), "picks by key, which label subsets do"
          + " not pass on", "without subset.selectors, or a balancer that picks without a key");
    }
    return hash;
  }

  /** Returns the algorithm a balancer property names. */
  static Algorithm algorithm(PropertyChecks p, String property, String value) {
    p.notBlank(property, value, BALANCER_FORM);
    try {
      return Algorithm.fromName(value);
    } catch (IllegalArgumentException e) {
      throw p.invalid(property, value, "unknown balancer", BALANCER_FORM);
    }
  }

  private static List<Endpoint> endpoints(PropertyChecks p, List<String> texts, boolean required) {
    if (texts == null || texts.isEmpty()) {
      if (required) {
        throw p.invalid("endpoints", null, "no endpoint given", "at least one endpoint "
            + ENDPOINT_FORM);
      }
      return List.of();
    }
    List<Endpoint> result = new ArrayList<>(texts.size());
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < texts.size(); i++) {
      String property = "endpoints[" + i + "]";
      String text = texts.get(i);
      if (text == null || text.isBlank()) {
        throw p.invalid(property, text, "empty endpoint", ENDPOINT_FORM);
      }
      Endpoint endpoint;
      try {
        endpoint = Endpoint.parse(text.trim());
      } catch (IllegalArgumentException e) {
        throw p.invalid(property, text, e.getMessage(), ENDPOINT_FORM);
      }
      Integer earlier = seen.putIfAbsent(endpoint.address(), i);
      if (earlier != null) {
        throw p.invalid(property, text, "address " + endpoint.address()
            + " already given in endpoints[" + earlier + "]", "each address once");
      }
      result.add(endpoint);
    }
    return List.copyOf(result);
  }

  private static Subset subset(PropertyChecks p, BallastProperties.Subset s) {
    String form = "comma-separated label keys, e.g. zone,version";
    List<Set<String>> selectors = new ArrayList<>();
    List<String> texts = s.getSelectors() == null ? List.of() : s.getSelectors();
    for (int i = 0; i < texts.size(); i++) {
      String property = "subset.selectors[" + i + "]";
      String text = texts.get(i);
      if (text == null || text.isBlank()) {
        throw p.invalid(property, text, "empty selector", form);
      }
      Set<String> keys = new LinkedHashSet<>();
      for (String key : text.split(",", -1)) {
        String k = key.trim();
        String problem = PropertyChecks.labelKeyProblem(k);
        if (problem != null) {
          throw p.invalid(property, text, problem, form);
        }
        if (!keys.add(k)) {
          throw p.invalid(property, text, "label key " + k + " given twice", form);
        }
      }
      selectors.add(Collections.unmodifiableSet(keys));
    }
    FallbackPolicy fallback = p.oneOf("subset.fallback-policy", s.getFallbackPolicy(),
        FallbackPolicy.class);
    TreeMap<String, String> defaults = new TreeMap<>();
    if (s.getDefaultSubset() != null) {
      for (Map.Entry<String, String> e : s.getDefaultSubset().entrySet()) {
        String property = "subset.default-subset." + e.getKey();
        String problem = PropertyChecks.labelKeyProblem(e.getKey());
        if (problem == null) {
          problem = PropertyChecks.labelValueProblem(e.getValue());
        }
        if (problem != null) {
          throw p.invalid(property, e.getValue(), problem,
              "label key=value pairs, e.g. subset.default-subset.version=v1");
        }
        defaults.put(e.getKey(), e.getValue());
      }
    }
    if (fallback == FallbackPolicy.DEFAULT_SUBSET && defaults.isEmpty()) {
      throw p.invalid("subset.default-subset", null,
          "no labels while subset.fallback-policy is default-subset",
          "label key=value pairs, e.g. subset.default-subset.version=v1");
    }
    String prefix = s.getHeaderPrefix() == null ? "" : s.getHeaderPrefix();
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
          || c == '.')) {
        throw p.invalid("subset.header-prefix", prefix, "unexpected character '" + c + "'",
            "a lowercase header-name prefix of letters, digits, '-', '_' or '.', e.g. x-lb-");
      }
    }
    return new Subset(List.copyOf(selectors), fallback, Collections.unmodifiableMap(defaults),
        s.isAllowRedundantKeys(), prefix);
  }

  private static Pool pool(PropertyChecks p, BallastProperties.Pool pool) {
    int min = p.atLeast("pool.min-connections", pool.getMinConnections(), 0);
    int max = p.atLeast("pool.max-connections", pool.getMaxConnections(), 1);
    if (max < min) {
      throw p.invalid("pool.max-connections", max, "below pool.min-connections (" + min + ")",
          "an integer >= pool.min-connections");
    }
    return new Pool(
        p.positive("pool.connect-timeout", pool.getConnectTimeout()),
        min,
        max,
        p.atLeast("pool.max-in-flight-per-connection", pool.getMaxInFlightPerConnection(), 1),
        p.atLeast("pool.max-pending-acquires", pool.getMaxPendingAcquires(), 1),
        p.positive("pool.acquire-timeout", pool.getAcquireTimeout()),
        p.positive("pool.idle-timeout", pool.getIdleTimeout()),
        p.notNegative("pool.max-lifetime", pool.getMaxLifetime()));
  }

  private static int clientIndex(PropertyChecks p, BallastProperties.Aperture a) {
    int count = p.atLeast("aperture.client-count", a.getClientCount(), 1);
    int index = p.atLeast("aperture.client-index", a.getClientIndex(), 0);
    if (index >= count) {
      throw p.invalid("aperture.client-index", index, "not below client-count " + count,
          "an index from 0 to " + (count - 1));
    }
    return index;
  }

  private static double failurePenalty(PropertyChecks p, double penalty) {
    if (!(penalty >= 1) || Double.isInfinite(penalty)) {
      throw p.invalid("failure-penalty", penalty, "out of range", "a number >= 1, e.g. 2");
    }
    return penalty;
  }

  private static double aggression(PropertyChecks p, double aggression) {
    if (!(aggression > 0) || Double.isInfinite(aggression)) {
      throw p.invalid("slow-start.aggression", aggression, "out of range",
          "a number > 0, e.g. 1.0");
    }
    return aggression;
  }

  private static double percent(PropertyChecks p, double percent) {
    if (!(percent > 0 && percent <= 100)) {
      throw p.invalid("slow-start.min-weight-percent", percent, "out of range",
          "a percentage > 0 and <= 100, e.g. 10 or 0.1");
    }
    return percent;
  }

  private static RetryBudget retryBudget(PropertyChecks p, BallastProperties.RetryBudget b) {
    double percent = b.getPercent();
    if (!(percent >= 0 && percent <= 100)) {
      throw p.invalid("retry-budget.percent", percent, "out of range",
          "a percentage in 0-100, e.g. 20");
    }
    Duration ttl = p.positive("retry-budget.ttl", b.getTtl());
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(Duration.ofSeconds(60)) > 0) {
      throw p.invalid("retry-budget.ttl", PropertyChecks.format(ttl), "out of range",
          "a duration in 1s-60s, e.g. 10s");
    }
    return new RetryBudget(percent,
        p.atLeast("retry-budget.min-retries-per-second", b.getMinRetriesPerSecond(), 0), ttl);
  }

  private static OutlierDetection outlier(PropertyChecks p, BallastProperties.OutlierDetection o) {
    int percent = o.getMaxEjectionPercent();
    if (percent < 0 || percent > 100) {
      throw p.invalid("outlier-detection.max-ejection-percent", percent, "out of range",
          "a percentage in 0-100, e.g. 50");
    }
    Duration base = p.positive("outlier-detection.base-ejection-time", o.getBaseEjectionTime());
    Duration max = p.positive("outlier-detection.max-ejection-time", o.getMaxEjectionTime());
    if (max.compareTo(base) < 0) {
      throw p.invalid("outlier-detection.max-ejection-time", PropertyChecks.format(max),
          "below outlier-detection.base-ejection-time (" + PropertyChecks.format(base) + ")",
          "a duration >= outlier-detection.base-ejection-time, e.g. 5m");
    }
    return new OutlierDetection(o.isEnabled(),
        p.atLeast("outlier-detection.consecutive-failures", o.getConsecutiveFailures(), 1),
        p.share("outlier-detection.success-rate-threshold", o.getSuccessRateThreshold()),
        p.atLeast("outlier-detection.success-rate-min-requests", o.getSuccessRateMinRequests(), 1),
        p.positive("outlier-detection.interval", o.getInterval()), base, max, percent);
  }
}

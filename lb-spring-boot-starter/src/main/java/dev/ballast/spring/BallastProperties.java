package dev.ballast.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Ballast's properties, under {@code ballast.}: named clients under {@code ballast.clients.<name>.}
 * and the settings every client starts from under {@code ballast.defaults.}.
 *
 * <pre>
 * ballast.clients.orders.endpoints[0]=10.0.0.1:7000;weight=3;zone=a
 * ballast.clients.orders.endpoints[1]=10.0.0.2:7000;zone=b
 * ballast.clients.orders.balancer=vnswrr
 * ballast.defaults.timeout=2s
 * </pre>
 *
 * <p>A client's setting that is not given takes the value under {@code ballast.defaults.}, and
 * failing that the default written on each property here (lists are replaced as a whole, the
 * {@code subset.default-subset} map is merged key by key). Every value is checked at start-up;
 * a bad one stops the application with a message naming the property and the expected form, and
 * so does a key under {@code ballast.clients.<name>.} or {@code ballast.defaults.} that is no
 * property of {@link Client} (a typo such as {@code balancr}).
 */
@ConfigurationProperties("ballast")
public class BallastProperties {

  /**
   * Named clients; each key is a client name (also the gRPC target ballast://name) and each
   * value has the properties documented under ballast.defaults.
   */
  private Map<String, Client> clients = new LinkedHashMap<>();

  /** Settings every client starts from; a client's own properties override them. */
  private final Client defaults = new Client();

  /** Micrometer settings. */
  private final Metrics metrics = new Metrics();

  /** gRPC settings. */
  private final Grpc grpc = new Grpc();

  /** Spring Cloud LoadBalancer settings. */
  private final SpringCloud springCloud = new SpringCloud();

  /** Spring's RestClient, RestTemplate and WebClient over the named clients. */
  private final HttpClients httpClients = new HttpClients();

  /** Returns the named clients; empty by default. */
  public Map<String, Client> getClients() {
    return clients;
  }

  /** Sets the named clients. */
  public void setClients(Map<String, Client> clients) {
    this.clients = clients;
  }

  /** Returns the settings every client starts from. */
  public Client getDefaults() {
    return defaults;
  }

  /** Returns the Micrometer settings. */
  public Metrics getMetrics() {
    return metrics;
  }

  /** Returns the gRPC settings. */
  public Grpc getGrpc() {
    return grpc;
  }

  /** Returns the Spring Cloud LoadBalancer settings. */
  public SpringCloud getSpringCloud() {
    return springCloud;
  }

  /** Returns the settings of Spring's HTTP clients. */
  public HttpClients getHttpClients() {
    return httpClients;
  }

  /** The settings of one client. Field comments give each property's meaning and default. */
  public static class Client {

    /**
     * Endpoints in the textual form host:port;weight=3;zone=us-east (IPv6 as [::1]:8080;
     * weight defaults to 1; any other key=value is a label). Empty by default.
     */
    private List<String> endpoints = new ArrayList<>();

    /**
     * Balancing algorithm: vnswrr, swrr, round-robin, weighted-random, least-loaded,
     * p2c-peak-ewma, aperture, or by a call's key: ring-hash, ketama or maglev (see hash.*).
     */
    private String balancer = "p2c-peak-ewma";

    /** Decay time constant (tau) of the peak-EWMA latency estimate; must be positive. */
    private Duration decayTime = Duration.ofSeconds(10);

    /** Round-trip time assumed for an endpoint until it first answers (peak EWMA); >= 0. */
    private Duration defaultRtt = Duration.ofMillis(30);

    /** How many candidates a pick tries before scanning for any open endpoint; >= 1. */
    private int maxEffort = 5;

    /**
     * Whether a pick that finds no open endpoint takes a busy or closed one (Finagle's panic
     * mode) instead of failing the call.
     */
    private boolean panicPick = false;

    /**
     * nginx's max_fails for swrr: a failure lowers an endpoint's effective weight by
     * weight/max-fails, recovering by 1 per pick; >= 1.
     */
    private int maxFails = 1;

    /**
     * How much a failed call raises an endpoint's peak-EWMA latency estimate at most, so that
     * an endpoint failing fast does not look fastest; >= 1 (1 turns it off).
     */
    private double failurePenalty = 2.0;

    /** Slow start: endpoints that join later ramp up to their weight over a window. */
    private final SlowStart slowStart = new SlowStart();

    /** Deterministic aperture (balancer aperture): this client's place among its peers. */
    private final Aperture aperture = new Aperture();

    /** Deadline of one call, retries included; must be positive. */
    private Duration timeout = Duration.ofSeconds(5);

    /** Most attempts per call, the first included (1 turns retries off); >= 1. */
    private int maxAttempts = 3;

    /** Attempts at least this slow are logged with endpoint, latency and attempt; >= 0. */
    private Duration slowRequestThreshold = Duration.ofSeconds(1);

    /** How long closing the client lets calls in flight finish; >= 0. */
    private Duration closeGrace = Duration.ofSeconds(5);

    /**
     * How long a request past its deadline keeps its node busy while its answer may still come
     * (the balancer then hears its true latency); >= 0, 0 gives it up at the deadline.
     */
    private Duration lateAnswerWait = Duration.ofSeconds(10);

    /**
     * Protocol spoken to the endpoints: framed (Ballast's framed binary protocol), http, or grpc
     * (the endpoints only feed gRPC channels targeting ballast://name; no lb-netty client).
     */
    private String protocol = "framed";

    /** Largest frame (framed) or response body (http) a connection accepts; >= 64B. */
    private DataSize maxFrameSize = DataSize.ofMegabytes(16);

    /** Label subsets: route a call to the endpoints whose labels match the call's. */
    private final Subset subset = new Subset();

    /** The connection pool kept per endpoint. */
    private final Pool pool = new Pool();

    /** The retry budget: which share of calls may be retried. */
    private final RetryBudget retryBudget = new RetryBudget();

    /** Outlier detection: ejecting endpoints that keep failing. */
    private final OutlierDetection outlierDetection = new OutlierDetection();

    /** Endpoints from a registry or DNS instead of the endpoints list. */
    @NestedConfigurationProperty
    private final DiscoveryProperties discovery = new DiscoveryProperties();

    /** Balancing by key (balancer ring-hash, ketama or maglev). */
    @NestedConfigurationProperty
    private final HashProperties hash = new HashProperties();

    /** Returns where the endpoints come from when not listed. */
    public DiscoveryProperties getDiscovery() {
      return discovery;
    }

    /** Returns the settings of balancing by key. */
    public HashProperties getHash() {
      return hash;
    }

    /** Returns the endpoints in textual form; empty by default. */
    public List<String> getEndpoints() {
      return endpoints;
    }

    /** Sets the endpoints in textual form. */
    public void setEndpoints(List<String> endpoints) {
      this.endpoints = endpoints;
    }

    /** Returns the balancer name; default {@code p2c-peak-ewma}. */
    public String getBalancer() {
      return balancer;
    }

    /** Sets the balancer name. */
    public void setBalancer(String balancer) {
      this.balancer = balancer;
    }

    /** Returns the peak-EWMA decay time; default 10 s. */
    public Duration getDecayTime() {
      return decayTime;
    }

    /** Sets the peak-EWMA decay time. */
    public void setDecayTime(Duration decayTime) {
      this.decayTime = decayTime;
    }

    /** Returns the RTT assumed for new endpoints; default 30 ms. */
    public Duration getDefaultRtt() {
      return defaultRtt;
    }

    /** Sets the RTT assumed for new endpoints. */
    public void setDefaultRtt(Duration defaultRtt) {
      this.defaultRtt = defaultRtt;
    }

    /** Returns the candidates a pick tries; default 5. */
    public int getMaxEffort() {
      return maxEffort;
    }

    /** Sets the candidates a pick tries. */
    public void setMaxEffort(int maxEffort) {
      this.maxEffort = maxEffort;
    }

    /** Returns whether picks fall back to busy or closed endpoints; default false. */
    public boolean isPanicPick() {
      return panicPick;
    }

    /** Sets whether picks fall back to busy or closed endpoints. */
    public void setPanicPick(boolean panicPick) {
      this.panicPick = panicPick;
    }

    /** Returns nginx's max_fails for swrr; default 1. */
    public int getMaxFails() {
      return maxFails;
    }

    /** Sets nginx's max_fails for swrr. */
    public void setMaxFails(int maxFails) {
      this.maxFails = maxFails;
    }

    /** Returns the call deadline; default 5 s. */
    public Duration getTimeout() {
      return timeout;
    }

    /** Sets the call deadline. */
    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    /** Returns the most attempts per call; default 3. */
    public int getMaxAttempts() {
      return maxAttempts;
    }

    /** Sets the most attempts per call. */
    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    /** Returns the slow-attempt log threshold; default 1 s. */
    public Duration getSlowRequestThreshold() {
      return slowRequestThreshold;
    }

    /** Sets the slow-attempt log threshold. */
    public void setSlowRequestThreshold(Duration slowRequestThreshold) {
      this.slowRequestThreshold = slowRequestThreshold;
    }

    /** Returns the close grace period; default 5 s. */
    public Duration getCloseGrace() {
      return closeGrace;
    }

    /** Sets the close grace period. */
    public void setCloseGrace(Duration closeGrace) {
      this.closeGrace = closeGrace;
    }

    /** Returns how long a late answer is awaited past the deadline; default 10 s. */
    public Duration getLateAnswerWait() {
      return lateAnswerWait;
    }

    /** Sets how long a late answer is awaited past the deadline. */
    public void setLateAnswerWait(Duration lateAnswerWait) {
      this.lateAnswerWait = lateAnswerWait;
    }

    /** Returns the protocol; default {@code framed}. */
    public String getProtocol() {
      return protocol;
    }

    /** Sets the protocol. */
    public void setProtocol(String protocol) {
      this.protocol = protocol;
    }

    /** Returns the failure penalty of peak EWMA; default 2.0. */
    public double getFailurePenalty() {
      return failurePenalty;
    }

    /** Sets the failure penalty. */
    public void setFailurePenalty(double failurePenalty) {
      this.failurePenalty = failurePenalty;
    }

    /** Returns the slow-start settings. */
    public SlowStart getSlowStart() {
      return slowStart;
    }

    /** Returns the aperture settings. */
    public Aperture getAperture() {
      return aperture;
    }

    /** Returns the largest frame or response body; default 16 MB. */
    public DataSize getMaxFrameSize() {
      return maxFrameSize;
    }

    /** Sets the largest frame or response body. */
    public void setMaxFrameSize(DataSize maxFrameSize) {
      this.maxFrameSize = maxFrameSize;
    }

    /** Returns the subset settings. */
    public Subset getSubset() {
      return subset;
    }

    /** Returns the pool settings. */
    public Pool getPool() {
      return pool;
    }

    /** Returns the retry-budget settings. */
    public RetryBudget getRetryBudget() {
      return retryBudget;
    }

    /** Returns the outlier-detection settings. */
    public OutlierDetection getOutlierDetection() {
      return outlierDetection;
    }
  }

  /**
   * Label subsets (Envoy's subset load balancer, lb-core's SubsetSelector): lb-netty clients route
   * by their calls' labels ({@code CallOptions.withLabels}), gRPC channels by headers through
   * lb-grpc's {@code label_subset} policy ({@link BallastGrpcEndpoints#serviceConfig(String)}).
   */
  public static class Subset {

    /**
     * Selectors, each a comma-separated set of label keys, e.g. "zone" and "zone,version".
     * Empty by default: no subsets, every call may go to every endpoint.
     */
    private List<String> selectors = new ArrayList<>();

    /**
     * What a call whose labels match no subset gets: no-fallback (it fails), any-endpoint, or
     * default-subset (the endpoints matching default-subset).
     */
    private String fallbackPolicy = "no-fallback";

    /**
     * Labels of the default subset, required by fallback-policy=default-subset. Empty by
     * default.
     */
    private Map<String, String> defaultSubset = new LinkedHashMap<>();

    /** Whether request labels outside every selector are ignored (Envoy's allow_redundant_keys). */
    private boolean allowRedundantKeys = false;

    /** gRPC: request label k comes from the call header header-prefix + k, e.g. x-lb-zone. */
    private String headerPrefix = "x-lb-";

    /** Returns the selectors; empty by default. */
    public List<String> getSelectors() {
      return selectors;
    }

    /** Sets the selectors. */
    public void setSelectors(List<String> selectors) {
      this.selectors = selectors;
    }

    /** Returns the fallback policy; default {@code no-fallback}. */
    public String getFallbackPolicy() {
      return fallbackPolicy;
    }

    /** Sets the fallback policy. */
    public void setFallbackPolicy(String fallbackPolicy) {
      this.fallbackPolicy = fallbackPolicy;
    }

    /** Returns the default subset's labels; empty by default. */
    public Map<String, String> getDefaultSubset() {
      return defaultSubset;
    }

    /** Sets the default subset's labels. */
    public void setDefaultSubset(Map<String, String> defaultSubset) {
      this.defaultSubset = defaultSubset;
    }

    /** Returns whether redundant request labels are ignored; default false. */
    public boolean isAllowRedundantKeys() {
      return allowRedundantKeys;
    }

    /** Sets whether redundant request labels are ignored. */
    public void setAllowRedundantKeys(boolean allowRedundantKeys) {
      this.allowRedundantKeys = allowRedundantKeys;
    }

    /** Returns the gRPC header prefix of request labels; default {@code x-lb-}. */
    public String getHeaderPrefix() {
      return headerPrefix;
    }

    /** Sets the gRPC header prefix of request labels. */
    public void setHeaderPrefix(String headerPrefix) {
      this.headerPrefix = headerPrefix;
    }
  }

  /** The connection pool kept per endpoint. */
  public static class Pool {

    /** How long opening a connection may take; must be positive. */
    private Duration connectTimeout = Duration.ofSeconds(2);

    /** Connections kept open per endpoint even when idle; >= 0. */
    private int minConnections = 0;

    /** Most connections open (or opening) per endpoint; >= 1 and >= min-connections. */
    private int maxConnections = 8;

    /** Most calls in flight on one connection of a multiplexed protocol; >= 1. */
    private int maxInFlightPerConnection = 256;

    /** Most calls waiting for a connection per endpoint; more fail at once; >= 1. */
    private int maxPendingAcquires = 1024;

    /** How long a call may wait for a connection (never past its deadline); positive. */
    private Duration acquireTimeout = Duration.ofSeconds(5);

    /** How long a connection may stay unused before it is closed; positive. */
    private Duration idleTimeout = Duration.ofSeconds(60);

    /** Most a connection lives before it is replaced; 0 for forever; >= 0. */
    private Duration maxLifetime = Duration.ofMinutes(30);

    /** Returns the connect timeout; default 2 s. */
    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    /** Sets the connect timeout. */
    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }

    /** Returns the connections kept when idle; default 0. */
    public int getMinConnections() {
      return minConnections;
    }

    /** Sets the connections kept when idle. */
    public void setMinConnections(int minConnections) {
      this.minConnections = minConnections;
    }

    /** Returns the most connections per endpoint; default 8. */
    public int getMaxConnections() {
      return maxConnections;
    }

    /** Sets the most connections per endpoint. */
    public void setMaxConnections(int maxConnections) {
      this.maxConnections = maxConnections;
    }

    /** Returns the in-flight cap per multiplexed connection; default 256. */
    public int getMaxInFlightPerConnection() {
      return maxInFlightPerConnection;
    }

    /** Sets the in-flight cap per multiplexed connection. */
    public void setMaxInFlightPerConnection(int maxInFlightPerConnection) {
      this.maxInFlightPerConnection = maxInFlightPerConnection;
    }

    /** Returns the bound of waiting acquires; default 1024. */
    public int getMaxPendingAcquires() {
      return maxPendingAcquires;
    }

    /** Sets the bound of waiting acquires. */
    public void setMaxPendingAcquires(int maxPendingAcquires) {
      this.maxPendingAcquires = maxPendingAcquires;
    }

    /** Returns the acquire timeout; default 5 s. */
    public Duration getAcquireTimeout() {
      return acquireTimeout;
    }

    /** Sets the acquire timeout. */
    public void setAcquireTimeout(Duration acquireTimeout) {
      this.acquireTimeout = acquireTimeout;
    }

    /** Returns the idle timeout; default 60 s. */
    public Duration getIdleTimeout() {
      return idleTimeout;
    }

    /** Sets the idle timeout. */
    public void setIdleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
    }

    /** Returns the maximum connection lifetime; default 30 min. */
    public Duration getMaxLifetime() {
      return maxLifetime;
    }

    /** Sets the maximum connection lifetime. */
    public void setMaxLifetime(Duration maxLifetime) {
      this.maxLifetime = maxLifetime;
    }
  }

  /**
   * Envoy's slow start: an endpoint that joins after the first set gets weight x max(floor,
   * (t / window)^(1 / aggression)), in tenths, until the window has passed.
   */
  public static class SlowStart {

    /** The ramp's length; 0 (the default) turns slow start off. */
    private Duration window = Duration.ZERO;

    /** The ramp's shape: 1 is linear, above 1 fast at first, below 1 slow at first; > 0. */
    private double aggression = 1.0;

    /** The ramp's floor in percent of the weight; > 0 and <= 100, fractions allowed (0.1). */
    private double minWeightPercent = 10;

    /** Returns the window; default 0 (off). */
    public Duration getWindow() {
      return window;
    }

    /** Sets the window. */
    public void setWindow(Duration window) {
      this.window = window;
    }

    /** Returns the aggression; default 1.0. */
    public double getAggression() {
      return aggression;
    }

    /** Sets the aggression. */
    public void setAggression(double aggression) {
      this.aggression = aggression;
    }

    /** Returns the floor in percent; default 10. */
    public double getMinWeightPercent() {
      return minWeightPercent;
    }

    /** Sets the floor in percent (&gt; 0 and &lt;= 100; a fraction such as 0.1 is allowed). */
    public void setMinWeightPercent(double minWeightPercent) {
      this.minWeightPercent = minWeightPercent;
    }
  }

  /** Deterministic aperture: the client's index among count clients of the same servers. */
  public static class Aperture {

    /** This client's index among its peers, 0 to client-count - 1. */
    private int clientIndex = 0;

    /** How many clients share the servers; 1 (a lone client) covers every server. */
    private int clientCount = 1;

    /** Returns the client's index; default 0. */
    public int getClientIndex() {
      return clientIndex;
    }

    /** Sets the client's index. */
    public void setClientIndex(int clientIndex) {
      this.clientIndex = clientIndex;
    }

    /** Returns the number of clients; default 1. */
    public int getClientCount() {
      return clientCount;
    }

    /** Sets the number of clients. */
    public void setClientCount(int clientCount) {
      this.clientCount = clientCount;
    }
  }

  /** Finagle's retry budget: retries may add at most a share of the calls. */
  public static class RetryBudget {

    /** Share of calls that may be retried, in percent; 0-100. */
    private double percent = 20;

    /** Retries allowed per second whatever the traffic; >= 0. */
    private int minRetriesPerSecond = 10;

    /** How long a call counts towards the budget; 1s-60s. */
    private Duration ttl = Duration.ofSeconds(10);

    /** Returns the retryable share in percent; default 20. */
    public double getPercent() {
      return percent;
    }

    /** Sets the retryable share in percent. */
    public void setPercent(double percent) {
      this.percent = percent;
    }

    /** Returns the minimum retries per second; default 10. */
    public int getMinRetriesPerSecond() {
      return minRetriesPerSecond;
    }

    /** Sets the minimum retries per second. */
    public void setMinRetriesPerSecond(int minRetriesPerSecond) {
      this.minRetriesPerSecond = minRetriesPerSecond;
    }

    /** Returns the budget window; default 10 s. */
    public Duration getTtl() {
      return ttl;
    }

    /** Sets the budget window. */
    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }
  }

  /** Outlier detection: endpoints that keep failing are ejected for a growing time. */
  public static class OutlierDetection {

    /** Whether outlier detection is on. */
    private boolean enabled = true;

    /** Failures in a row that eject an endpoint; >= 1. */
    private int consecutiveFailures = 5;

    /**
     * Success rate (0-1) below which an endpoint is ejected at the end of an interval; 0 turns
     * success-rate ejection off.
     */
    private double successRateThreshold = 0.5;

    /** Calls an endpoint needs in an interval before its success rate counts; >= 1. */
    private int successRateMinRequests = 20;

    /** Window over which success rates are measured; positive. */
    private Duration interval = Duration.ofSeconds(10);

    /** Duration of the first ejection (later ones double); positive. */
    private Duration baseEjectionTime = Duration.ofSeconds(5);

    /** Longest an ejection lasts; >= base-ejection-time. */
    private Duration maxEjectionTime = Duration.ofMinutes(5);

    /** Most endpoints ejected at once, in percent; 0-100. */
    private int maxEjectionPercent = 50;

    /** Returns whether detection is on; default true. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Turns detection on or off. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** Returns the failures in a row that eject; default 5. */
    public int getConsecutiveFailures() {
      return consecutiveFailures;
    }

    /** Sets the failures in a row that eject. */
    public void setConsecutiveFailures(int consecutiveFailures) {
      this.consecutiveFailures = consecutiveFailures;
    }

    /** Returns the success rate below which an endpoint is ejected; default 0.5. */
    public double getSuccessRateThreshold() {
      return successRateThreshold;
    }

    /** Sets the success rate below which an endpoint is ejected (0 turns it off). */
    public void setSuccessRateThreshold(double successRateThreshold) {
      this.successRateThreshold = successRateThreshold;
    }

    /** Returns the calls an interval needs before its success rate counts; default 20. */
    public int getSuccessRateMinRequests() {
      return successRateMinRequests;
    }

    /** Sets the calls an interval needs before its success rate counts. */
    public void setSuccessRateMinRequests(int successRateMinRequests) {
      this.successRateMinRequests = successRateMinRequests;
    }

    /** Returns the success-rate window; default 10 s. */
    public Duration getInterval() {
      return interval;
    }

    /** Sets the success-rate window. */
    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    /** Returns the longest ejection; default 5 min. */
    public Duration getMaxEjectionTime() {
      return maxEjectionTime;
    }

    /** Sets the longest ejection. */
    public void setMaxEjectionTime(Duration maxEjectionTime) {
      this.maxEjectionTime = maxEjectionTime;
    }

    /** Returns the first ejection's duration; default 5 s. */
    public Duration getBaseEjectionTime() {
      return baseEjectionTime;
    }

    /** Sets the first ejection's duration. */
    public void setBaseEjectionTime(Duration baseEjectionTime) {
      this.baseEjectionTime = baseEjectionTime;
    }

    /** Returns the most endpoints ejected at once, in percent; default 50. */
    public int getMaxEjectionPercent() {
      return maxEjectionPercent;
    }

    /** Sets the most endpoints ejected at once, in percent. */
    public void setMaxEjectionPercent(int maxEjectionPercent) {
      this.maxEjectionPercent = maxEjectionPercent;
    }
  }

  /** Micrometer settings. */
  public static class Metrics {

    /** Whether clients report to the application's MeterRegistry when there is one. */
    private boolean enabled = true;

    /** Returns whether metrics are on; default true. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Turns metrics on or off. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** gRPC settings. */
  public static class Grpc {

    /**
     * Whether every client's endpoints are published for gRPC targets ballast://<name> (when
     * lb-grpc is on the class path).
     */
    private boolean enabled = true;

    /** Returns whether endpoints are published for gRPC; default true. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Turns publishing for gRPC on or off. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** Spring Cloud LoadBalancer settings. */
  public static class SpringCloud {

    /**
     * Balancer of every service that Spring Cloud LoadBalancer balances (@LoadBalanced
     * RestTemplate, RestClient and WebClient, over the application's discovery): vnswrr, swrr,
     * round-robin, weighted-random, least-loaded or p2c-peak-ewma, with the settings under
     * ballast.defaults (decay-time, default-rtt...). Not set by default: Spring Cloud keeps its
     * own balancer.
     */
    private String balancer;

    /** Returns the balancer of Spring Cloud's services; null (Spring Cloud's own) by default. */
    public String getBalancer() {
      return balancer;
    }

    /** Sets the balancer of Spring Cloud's services. */
    public void setBalancer(String balancer) {
      this.balancer = balancer;
    }
  }

  /** Settings of Spring's HTTP clients. */
  public static class HttpClients {

    /**
     * Whether Spring Boot's RestClient.Builder, RestTemplateBuilder and WebClient.Builder send
     * http://<name>/... URLs through the client ballast.clients.<name> with protocol=http.
     */
    private boolean enabled = true;

    /** Returns whether Spring's HTTP clients use the named clients; default true. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Turns Spring's HTTP clients over the named clients on or off. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}

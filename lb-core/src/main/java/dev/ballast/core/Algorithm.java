package dev.ballast.core;

import dev.ballast.core.load.WeightedRoundRobinConfig;
import java.util.List;
import java.util.Objects;

/**
 * lb-core's algorithms by name, for configuration files, gRPC policy names and the simulator.
 * Names are matched case-insensitively with {@code -} and {@code _} alike ({@code p2c-peak-ewma}
 * and {@code p2c_peak_ewma} are the same). Each algorithm's class lives in a package of its own
 * family ({@code dev.ballast.core.loadaware}, {@code roundrobin}, {@code hash}, {@code aperture});
 * for one version this enum makes them through their deprecated aliases in this package. Any
 * policy, a user's too, is also found by name in {@link dev.ballast.core.policy.PolicyRegistry}.
 */
public enum Algorithm {
  /** Round robin ({@code dev.ballast.core.roundrobin.RoundRobin}). */
  ROUND_ROBIN("round_robin", Takes.CONFIG),
  /** Weighted random ({@code dev.ballast.core.roundrobin.WeightedRandom}). */
  WEIGHTED_RANDOM("weighted_random", Takes.CONFIG),
  /**
   * nginx's smooth weighted round robin ({@code
   * dev.ballast.core.roundrobin.SmoothWeightedRoundRobin}).
   */
  SWRR("swrr", Takes.CONFIG),
  /** Virtual-node SWRR ({@code dev.ballast.core.roundrobin.Vnswrr}). */
  VNSWRR("vnswrr", Takes.CONFIG),
  /** P2C least loaded ({@code dev.ballast.core.loadaware.LeastLoaded}). */
  LEAST_LOADED("least_loaded", Takes.CONFIG),
  /** P2C over peak-EWMA latency ({@code dev.ballast.core.loadaware.P2cPeakEwma}), the default. */
  P2C_PEAK_EWMA("p2c_peak_ewma", Takes.CONFIG),
  /** Deterministic aperture ({@code dev.ballast.core.aperture.Aperture}). */
  APERTURE("aperture", Takes.CONFIG),
  /** gRPC's ring hash ({@code dev.ballast.core.hash.RingHash}): picks by key. */
  RING_HASH("ring_hash", Takes.HASH),
  /** twemproxy's ketama ({@code dev.ballast.core.hash.Ketama}): picks by key. */
  KETAMA("ketama", Takes.HASH),
  /** Maglev ({@code dev.ballast.core.hash.Maglev}): picks by key. */
  MAGLEV("maglev", Takes.HASH),
  /**
   * Weights from server load reports, gRFC A58 ({@code
   * dev.ballast.core.loadaware.WeightedRoundRobin}).
   */
  WEIGHTED_ROUND_ROBIN("weighted_round_robin", Takes.REPORTS),
  /**
   * P2C by server-reported capacity and requests in flight, latency the tie-break ({@code
   * dev.ballast.core.loadaware.P2cUtilization}).
   */
  P2C_UTILIZATION("p2c_utilization", Takes.REPORTS);

  /** What an algorithm's constructor takes besides the {@link BalancerConfig}: its traits. */
  private enum Takes { CONFIG, HASH, REPORTS }

  private final String id;
  private final Takes takes;

  Algorithm(String id, Takes takes) {
    this.id = id;
    this.takes = takes;
  }

  /** Returns the canonical name, e.g. {@code p2c_peak_ewma}. */
  public String id() {
    return id;
  }

  /** Returns whether the algorithm uses completion latency and pending counts to choose. */
  public boolean isLoadAware() {
    return this == LEAST_LOADED || this == P2C_PEAK_EWMA || this == APERTURE
        || this == P2C_UTILIZATION;
  }

  /** Returns whether the algorithm reads servers' load reports ({@link Node#reportLoad}). */
  public boolean readsReports() {
    return takes == Takes.REPORTS;
  }

  /**
   * Returns whether the algorithm picks by a request's key: its balancers are {@link
   * HashBalancer}s.
   */
  public boolean picksByKey() {
    return takes == Takes.HASH;
  }

  /**
   * Creates a new balancer of this algorithm; those that pick by key get {@link
   * HashConfig#defaults()}.
   */
  public <T> Balancer<T> create(BalancerConfig config) {
    return create(config, HashConfig.defaults());
  }

  /**
   * Creates a new balancer of this algorithm; {@code hashConfig} is read by the algorithms that
   * {@linkplain #picksByKey() pick by key}.
   */
  public <T> Balancer<T> create(BalancerConfig config, HashConfig hashConfig) {
    return create(config, hashConfig, WeightedRoundRobinConfig.defaults());
  }

  /**
   * Creates a new balancer of this algorithm; {@code hashConfig} is read by the algorithms that
   * {@linkplain #picksByKey() pick by key}, {@code reports} (gRFC A58's settings) by those that
   * {@linkplain #readsReports() read load reports}. For one version the balancer is an instance
   * of the algorithm's deprecated alias in this package too (a subclass of the moved class), so
   * that code casting to the old name keeps working.
   *
   * @throws IllegalArgumentException for a bad setting, as the algorithm's constructor does
   */
  @SuppressWarnings("removal") // the aliases, until they go: then the moved classes themselves
  public <T> Balancer<T> create(BalancerConfig config, HashConfig hashConfig,
      WeightedRoundRobinConfig reports) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(hashConfig, "hashConfig");
    Objects.requireNonNull(reports, "reports");
    return switch (this) {
      case ROUND_ROBIN -> new RoundRobin<>(config);
      case WEIGHTED_RANDOM -> new WeightedRandom<>(config);
      case SWRR -> new SmoothWeightedRoundRobin<>(config);
      case VNSWRR -> new Vnswrr<>(config);
      case LEAST_LOADED -> new LeastLoaded<>(config);
      case P2C_PEAK_EWMA -> new P2cPeakEwma<>(config);
      case APERTURE -> new Aperture<>(config);
      case RING_HASH -> new RingHash<>(config, hashConfig);
      case KETAMA -> new Ketama<>(config, hashConfig);
      case MAGLEV -> new Maglev<>(config, hashConfig);
      case WEIGHTED_ROUND_ROBIN -> new WeightedRoundRobin<>(config, reports);
      case P2C_UTILIZATION -> new P2cUtilization<>(config, reports);
    };
  }

  /**
   * Returns the algorithm with this name ({@code vnswrr}, {@code swrr}, {@code round-robin},
   * {@code weighted-random}, {@code least-loaded}, {@code p2c-peak-ewma}, {@code aperture},
   * {@code ring-hash}, {@code ketama}, {@code maglev}, {@code weighted-round-robin}, {@code
   * p2c-utilization}; {@code _} works as {@code -}).
   *
   * @throws IllegalArgumentException naming the unknown value and the expected ones
   */
  public static Algorithm fromName(String name) {
    Objects.requireNonNull(name, "name");
    try {
      return dev.ballast.core.config.ValueType.named(List.of(values()), Algorithm::id).parse(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("balancer: " + e.getMessage(), e);
    }
  }
}

package dev.ballast.core;

import dev.ballast.core.load.WeightedRoundRobinConfig;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The algorithms by name, for configuration files, gRPC policy names and the simulator. Names
 * are matched case-insensitively with {@code -} and {@code _} alike ({@code p2c-peak-ewma} and
 * {@code p2c_peak_ewma} are the same).
 */
public enum Algorithm {
  /** {@link RoundRobin}. */
  ROUND_ROBIN(RoundRobin.NAME),
  /** {@link WeightedRandom}. */
  WEIGHTED_RANDOM(WeightedRandom.NAME),
  /** {@link SmoothWeightedRoundRobin}, the nginx baseline. */
  SWRR(SmoothWeightedRoundRobin.NAME),
  /** {@link Vnswrr}. */
  VNSWRR(Vnswrr.NAME),
  /** {@link LeastLoaded}. */
  LEAST_LOADED(LeastLoaded.NAME),
  /** {@link P2cPeakEwma}. */
  P2C_PEAK_EWMA(P2cPeakEwma.NAME),
  /** {@link Aperture}. */
  APERTURE(Aperture.NAME),
  /** {@link RingHash}, as gRPC's {@code ring_hash}: picks by key. */
  RING_HASH(RingHash.NAME),
  /** {@link Ketama}, as twemproxy's: picks by key. */
  KETAMA(Ketama.NAME),
  /** {@link Maglev}: picks by key. */
  MAGLEV(Maglev.NAME),
  /** {@link WeightedRoundRobin}: weights from server load reports (gRFC A58). */
  WEIGHTED_ROUND_ROBIN(WeightedRoundRobin.NAME),
  /**
   * {@link P2cUtilization}: P2C by server-reported capacity and requests in flight, latency
   * the tie-break.
   */
  P2C_UTILIZATION(P2cUtilization.NAME);

  private final String id;

  Algorithm(String id) {
    this.id = id;
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
    return this == WEIGHTED_ROUND_ROBIN || this == P2C_UTILIZATION;
  }

  /**
   * Returns whether the algorithm picks by a request's key: its balancers are {@link
   * HashBalancer}s.
   */
  public boolean picksByKey() {
    return this == RING_HASH || this == KETAMA || this == MAGLEV;
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
   * {@linkplain #readsReports() read load reports}.
   */
  public <T> Balancer<T> create(BalancerConfig config, HashConfig hashConfig,
      WeightedRoundRobinConfig reports) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(hashConfig, "hashConfig");
    Objects.requireNonNull(reports, "reports");
    switch (this) {
      case ROUND_ROBIN:
        return new RoundRobin<>(config);
      case WEIGHTED_RANDOM:
        return new WeightedRandom<>(config);
      case SWRR:
        return new SmoothWeightedRoundRobin<>(config);
      case VNSWRR:
        return new Vnswrr<>(config);
      case LEAST_LOADED:
        return new LeastLoaded<>(config);
      case APERTURE:
        return new Aperture<>(config);
      case RING_HASH:
        return new RingHash<>(config, hashConfig);
      case KETAMA:
        return new Ketama<>(config, hashConfig);
      case MAGLEV:
        return new Maglev<>(config, hashConfig);
      case WEIGHTED_ROUND_ROBIN:
        return new WeightedRoundRobin<>(config, reports);
      case P2C_UTILIZATION:
        return new P2cUtilization<>(config, reports);
      default:
        return new P2cPeakEwma<>(config);
    }
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

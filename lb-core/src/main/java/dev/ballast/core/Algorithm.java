package dev.ballast.core;

import dev.ballast.core.load.WeightedRoundRobinConfig;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Objects;

/**
 * lb-core's algorithms by name, for configuration files, gRPC policy names and the simulator.
 * Names are matched case-insensitively with {@code -} and {@code _} alike ({@code p2c-peak-ewma}
 * and {@code p2c_peak_ewma} are the same). Each algorithm's class lives in a package of its own
 * family ({@code dev.ballast.core.loadaware}, {@code roundrobin}, {@code hash}, {@code aperture});
 * this enum finds it by name when first used, so that the root package, on which the algorithms
 * build, does not depend on them. Any policy, a user's too, is also found by name in {@link
 * dev.ballast.core.policy.PolicyRegistry}.
 */
public enum Algorithm {
  /** Round robin ({@code dev.ballast.core.roundrobin.RoundRobin}). */
  ROUND_ROBIN("round_robin", "roundrobin.RoundRobin", Takes.CONFIG),
  /** Weighted random ({@code dev.ballast.core.roundrobin.WeightedRandom}). */
  WEIGHTED_RANDOM("weighted_random", "roundrobin.WeightedRandom", Takes.CONFIG),
  /**
   * nginx's smooth weighted round robin ({@code
   * dev.ballast.core.roundrobin.SmoothWeightedRoundRobin}).
   */
  SWRR("swrr", "roundrobin.SmoothWeightedRoundRobin", Takes.CONFIG),
  /** Virtual-node SWRR ({@code dev.ballast.core.roundrobin.Vnswrr}). */
  VNSWRR("vnswrr", "roundrobin.Vnswrr", Takes.CONFIG),
  /** P2C least loaded ({@code dev.ballast.core.loadaware.LeastLoaded}). */
  LEAST_LOADED("least_loaded", "loadaware.LeastLoaded", Takes.CONFIG),
  /** P2C over peak-EWMA latency ({@code dev.ballast.core.loadaware.P2cPeakEwma}), the default. */
  P2C_PEAK_EWMA("p2c_peak_ewma", "loadaware.P2cPeakEwma", Takes.CONFIG),
  /** Deterministic aperture ({@code dev.ballast.core.aperture.Aperture}). */
  APERTURE("aperture", "aperture.Aperture", Takes.CONFIG),
  /** gRPC's ring hash ({@code dev.ballast.core.hash.RingHash}): picks by key. */
  RING_HASH("ring_hash", "hash.RingHash", Takes.HASH),
  /** twemproxy's ketama ({@code dev.ballast.core.hash.Ketama}): picks by key. */
  KETAMA("ketama", "hash.Ketama", Takes.HASH),
  /** Maglev ({@code dev.ballast.core.hash.Maglev}): picks by key. */
  MAGLEV("maglev", "hash.Maglev", Takes.HASH),
  /**
   * Weights from server load reports, gRFC A58 ({@code
   * dev.ballast.core.loadaware.WeightedRoundRobin}).
   */
  WEIGHTED_ROUND_ROBIN("weighted_round_robin", "loadaware.WeightedRoundRobin", Takes.REPORTS),
  /**
   * P2C by server-reported capacity and requests in flight, latency the tie-break ({@code
   * dev.ballast.core.loadaware.P2cUtilization}).
   */
  P2C_UTILIZATION("p2c_utilization", "loadaware.P2cUtilization", Takes.REPORTS);

  /** What an algorithm's constructor takes besides the {@link BalancerConfig}. */
  private enum Takes { CONFIG, HASH, REPORTS }

  private final String id;
  private final String className;
  private final Takes takes;

  Algorithm(String id, String className, Takes takes) {
    this.id = id;
    this.className = "dev.ballast.core." + className;
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
   * {@linkplain #readsReports() read load reports}.
   *
   * @throws IllegalArgumentException for a bad setting, as the algorithm's constructor does
   */
  @SuppressWarnings("unchecked")
  public <T> Balancer<T> create(BalancerConfig config, HashConfig hashConfig,
      WeightedRoundRobinConfig reports) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(hashConfig, "hashConfig");
    Objects.requireNonNull(reports, "reports");
    MethodHandle constructor = Constructors.ALL[ordinal()];
    try {
      return (Balancer<T>) switch (takes) {
        case CONFIG -> constructor.invoke(config);
        case HASH -> constructor.invoke(config, hashConfig);
        case REPORTS -> constructor.invoke(config, reports);
      };
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(id + ": " + e, e); // the constructors throw unchecked only
    }
  }

  /** Each algorithm's public constructor, looked up once, when an algorithm is first created. */
  private static final class Constructors {
    static final MethodHandle[] ALL = new MethodHandle[values().length];

    static {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      for (Algorithm a : values()) {
        MethodType type = switch (a.takes) {
          case CONFIG -> MethodType.methodType(void.class, BalancerConfig.class);
          case HASH -> MethodType.methodType(void.class, BalancerConfig.class, HashConfig.class);
          case REPORTS -> MethodType.methodType(void.class, BalancerConfig.class,
              WeightedRoundRobinConfig.class);
        };
        try {
          ALL[a.ordinal()] = lookup.findConstructor(Class.forName(a.className), type);
        } catch (ReflectiveOperationException e) {
          throw new ExceptionInInitializerError(new IllegalStateException(
              "lb-core's " + a.id + " balancer (" + a.className + ") is missing: " + e, e));
        }
      }
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

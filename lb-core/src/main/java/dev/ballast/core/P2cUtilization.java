package dev.ballast.core;

import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;

/**
 * P2C by the servers' own reported utilization, latency the tie-break: of two random nodes, take
 * the one whose server last reported the lower utilization ({@link LoadReport#utilization()},
 * the application's or else the CPU's), unless the two are within {@value #TIE} of each other;
 * then, or when either has not reported, take the one {@link P2cPeakEwma} would take (peak-EWMA
 * latency times pending requests). For servers that report but whose capacity moves faster than
 * {@link WeightedRoundRobin}'s weights follow (one update period, one second, behind): each
 * report counts from the next pick.
 *
 * <p>A utilization holds for {@link WeightedRoundRobinConfig#weightExpirationPeriod()} (3 min):
 * one that much older than the other candidate's counts as not reported, so a pick reads no
 * clock. Feed it reports with {@link Node#reportLoad} and completions with {@link
 * Node#complete}; it takes {@link P2cPeakEwma}'s settings ({@link BalancerConfig#decayTime()},
 * {@link BalancerConfig#defaultRtt()}, {@link BalancerConfig#failurePenalty()}).
 *
 * @param <T> the thing being balanced
 */
public final class P2cUtilization<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code p2c_utilization}. */
  public static final String NAME = "p2c_utilization";

  /**
   * Utilizations closer than this (5 points) are taken as equal: a server's reading moves that
   * much between samples of a steady load, and latency then decides.
   */
  public static final double TIE = 0.05;

  /** Creates a balancer with lb-core's and A58's defaults. */
  public P2cUtilization() {
    this(BalancerConfig.defaults(), WeightedRoundRobinConfig.defaults());
  }

  /** Creates a balancer with A58's defaults for how long a report holds. */
  public P2cUtilization(BalancerConfig config) {
    this(config, WeightedRoundRobinConfig.defaults());
  }

  /** Creates a balancer; {@code reports} gives how long a utilization holds. */
  public P2cUtilization(BalancerConfig config, WeightedRoundRobinConfig reports) {
    super(NAME, config, new ReportedLoad(config.ticker(), reports,
        new LoadMetric.PeakEwma(config.ticker(), config.decayTime(), config.defaultRtt(),
            config.failurePenalty())));
  }

  /** Returns how many bad values the reports fed to its nodes held (each was ignored). */
  public long rejectedValues() {
    return ((ReportedLoad) metric).rejected.sum();
  }

  @Override
  Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    ReportedLoad load = (ReportedLoad) metric;
    return new P2cSnapshot<>(NAME, nodes, weights, levels, config) {
      @Override
      boolean cheaper(int b, int a) {
        return takes(b, a, 0);
      }

      @Override
      boolean takes(int b, int a, long r) {
        Node<T> na = this.nodes[a];
        Node<T> nb = this.nodes[b];
        int byLoad = byUtilization(load, nb.reported, na.reported);
        if (byLoad != 0) {
          return byLoad > 0;
        }
        return load.latency.takes(nb, this.weights[b], na, this.weights[a], r,
            this.nodes.length);
      }
    };
  }

  /**
   * Returns 1 if b's utilization is lower than a's by more than {@link #TIE}, -1 if higher by
   * more, 0 if they are close or either has none (never reported, or older than the other's by
   * the expiration period).
   */
  static int byUtilization(ReportedLoad load, ReportedLoad.State b, ReportedLoad.State a) {
    long sa = a.utilizationStamp;
    long sb = b.utilizationStamp;
    if (sa == ReportedLoad.NEVER || sb == ReportedLoad.NEVER
        || Math.abs(sa - sb) >= load.expirationNanos) {
      return 0;
    }
    double d = a.utilization - b.utilization;
    return d > TIE ? 1 : d < -TIE ? -1 : 0;
  }
}

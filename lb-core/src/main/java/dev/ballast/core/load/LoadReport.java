package dev.ballast.core.load;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One load report from a server: the fields of ORCA's {@code OrcaLoadReport} (gRFC A51) that
 * balancing reads, as a gRPC server sends them in its {@code endpoint-load-metrics-bin} trailer or
 * on its out-of-band stream, and as Envoy's {@code endpoint-load-metrics} header carries them.
 *
 * <p>An absent field is 0, as in ORCA. A bad value is never fatal: {@link #of} drops a value that
 * is negative, NaN or infinite, and a utilization above {@value #MAX_UTILIZATION} (10,000%; A51
 * allows more than 1 past the server's soft limits), keeps 0 in its place, and
 * counts it in {@link #rejected()}, which the balancer that reads the report adds to its own
 * count. Utilization is the application's own ({@link #applicationUtilization()}) when the
 * server gives one, else the CPU's ({@link #utilization()}, as gRFC A58).
 */
public final class LoadReport {

  /** The highest utilization kept (10,000%): A51 allows values above 1 past soft limits. */
  public static final double MAX_UTILIZATION = 100;

  /** A report that says nothing: every field absent. */
  public static final LoadReport EMPTY = new LoadReport(0, 0, 0, 0, Map.of(), 0);

  private final double cpuUtilization;
  private final double applicationUtilization;
  private final double qps;
  private final double eps;
  private final Map<String, Double> namedMetrics;
  private final int rejected;

  private LoadReport(double cpuUtilization, double applicationUtilization, double qps,
      double eps, Map<String, Double> namedMetrics, int rejected) {
    this.cpuUtilization = cpuUtilization;
    this.applicationUtilization = applicationUtilization;
    this.qps = qps;
    this.eps = eps;
    this.namedMetrics = namedMetrics;
    this.rejected = rejected;
  }

  /** Returns a report of utilization, qps and eps (no application utilization, no names). */
  public static LoadReport of(double cpuUtilization, double qps, double eps) {
    return of(cpuUtilization, 0, qps, eps, Map.of());
  }

  /**
   * Returns a report of these values, each bad one dropped and counted ({@link #rejected()}).
   *
   * @param cpuUtilization the CPU's busy fraction, in [0, 100] (above 1 past soft limits)
   * @param applicationUtilization the application's own utilization, in [0, 100]; 0 if absent
   * @param qps queries per second, &gt;= 0
   * @param eps errors per second, &gt;= 0
   * @param namedMetrics other named utilizations and costs (ORCA's {@code utilization} and
   *     {@code named_metrics}); an entry with a null or empty name or a non-finite or negative
   *     value is dropped and counted
   */
  public static LoadReport of(double cpuUtilization, double applicationUtilization, double qps,
      double eps, Map<String, Double> namedMetrics) {
    Objects.requireNonNull(namedMetrics, "namedMetrics");
    int bad = 0;
    if (!isUtilization(cpuUtilization)) {
      cpuUtilization = 0;
      bad++;
    }
    if (!isUtilization(applicationUtilization)) {
      applicationUtilization = 0;
      bad++;
    }
    if (!isRate(qps)) {
      qps = 0;
      bad++;
    }
    if (!isRate(eps)) {
      eps = 0;
      bad++;
    }
    Map<String, Double> named = Map.of();
    if (!namedMetrics.isEmpty()) {
      Map<String, Double> kept = new LinkedHashMap<>();
      for (Map.Entry<String, Double> e : namedMetrics.entrySet()) {
        if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null
            || !isRate(e.getValue())) {
          bad++;
        } else {
          kept.put(e.getKey(), e.getValue());
        }
      }
      named = Map.copyOf(kept);
    }
    return new LoadReport(cpuUtilization, applicationUtilization, qps, eps, named, bad);
  }

  // A51 lets a utilization exceed 1 when the server is past its soft limits, and gRPC's
  // weighted_round_robin then weighs it down: keep such reports, so an overloaded server is not
  // given the mean weight; only an absurd value is dropped.
  private static boolean isUtilization(double v) {
    return v >= 0 && v <= MAX_UTILIZATION; // false for NaN
  }

  private static boolean isRate(double v) {
    return v >= 0 && v < Double.POSITIVE_INFINITY; // false for NaN
  }

  /** Returns the CPU utilization, a fraction in [0, 100]; 0 if absent or rejected. */
  public double cpuUtilization() {
    return cpuUtilization;
  }

  /** Returns the application's utilization, in [0, 100]; 0 if absent or rejected. */
  public double applicationUtilization() {
    return applicationUtilization;
  }

  /**
   * Returns the utilization balancing reads: the application's if above 0, else the CPU's (gRFC
   * A58); 0 if neither is known.
   */
  public double utilization() {
    return applicationUtilization > 0 ? applicationUtilization : cpuUtilization;
  }

  /** Returns queries per second; 0 if absent or rejected. */
  public double qps() {
    return qps;
  }

  /** Returns errors per second; 0 if absent or rejected. */
  public double eps() {
    return eps;
  }

  /**
   * Returns the named metrics that were kept, ORCA's {@code named_metrics} and {@code
   * utilization} as one map (read by {@link WeightedRoundRobinConfig#utilization} when metric
   * names are configured).
   */
  public Map<String, Double> namedMetrics() {
    return namedMetrics;
  }

  /** Returns this report with another count of rejected values (a reader's own rejections). */
  public LoadReport withRejected(int rejected) {
    return new LoadReport(cpuUtilization, applicationUtilization, qps, eps, namedMetrics,
        Math.max(0, rejected));
  }

  /** Returns how many values were bad and dropped when the report was made. */
  public int rejected() {
    return rejected;
  }

  /**
   * The largest weight a report gives, 10^15: a server reporting enormous qps over a tiny
   * utilization weighs this much, so that weights stay finite and sum without overflow (balancers
   * then cap any weight at ten times the mean).
   */
  public static final double MAX_WEIGHT = 1e15;

  /**
   * Returns gRFC A58's weight of this report: {@code qps / (utilization + eps / qps × penalty)},
   * at most {@link #MAX_WEIGHT}, or 0 when the report gives no positive utilization or qps (A58
   * then ignores the report).
   *
   * @param errorUtilizationPenalty how much an error counts as utilization, &gt;= 0
   */
  public double weight(double errorUtilizationPenalty) {
    return weight(errorUtilizationPenalty, utilization());
  }

  /**
   * Returns gRFC A58's weight of this report with {@code u} for its utilization (as {@link
   * WeightedRoundRobinConfig#utilization} reads it), at most {@link #MAX_WEIGHT}; 0 when {@code
   * u} or the qps is not positive.
   *
   * @param errorUtilizationPenalty how much an error counts as utilization, &gt;= 0
   * @param u the utilization to weigh by
   */
  public double weight(double errorUtilizationPenalty, double u) {
    if (!(u > 0 && qps > 0)) {
      return 0;
    }
    double penalty = eps > 0 && errorUtilizationPenalty > 0
        ? eps / qps * errorUtilizationPenalty : 0;
    return Math.min(MAX_WEIGHT, qps / (u + penalty));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoadReport r && Double.compare(cpuUtilization, r.cpuUtilization) == 0
        && Double.compare(applicationUtilization, r.applicationUtilization) == 0
        && Double.compare(qps, r.qps) == 0 && Double.compare(eps, r.eps) == 0
        && namedMetrics.equals(r.namedMetrics) && rejected == r.rejected;
  }

  @Override
  public int hashCode() {
    return Objects.hash(cpuUtilization, applicationUtilization, qps, eps, namedMetrics, rejected);
  }

  @Override
  public String toString() {
    return "LoadReport{cpu=" + cpuUtilization + ", application=" + applicationUtilization
        + ", qps=" + qps + ", eps=" + eps + (namedMetrics.isEmpty() ? "" : ", " + namedMetrics)
        + (rejected == 0 ? "" : ", rejected=" + rejected) + "}";
  }
}

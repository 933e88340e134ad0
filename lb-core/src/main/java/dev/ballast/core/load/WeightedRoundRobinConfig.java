package dev.ballast.core.load;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings of weighted round robin from server load reports, with gRFC A58's names and
 * defaults (gRPC's {@code weighted_round_robin}), so that a service config written for one works
 * for the other. Its options by name are {@link LoadOptions#WEIGHTED_ROUND_ROBIN}. {@link
 * #weightExpirationPeriod()} also tells {@link dev.ballast.core.loadaware.P2cUtilization} how long a
 * server's report holds.
 */
public final class WeightedRoundRobinConfig {

  /** The shortest weight update period; a shorter one is raised to it, as gRPC does: 100 ms. */
  public static final Duration MIN_WEIGHT_UPDATE_PERIOD = Duration.ofMillis(100);

  private static final WeightedRoundRobinConfig DEFAULTS = builder().build();

  private final Duration blackoutPeriod;
  private final Duration weightExpirationPeriod;
  private final Duration oobReportingPeriod;
  private final boolean enableOobLoadReport;
  private final Duration weightUpdatePeriod;
  private final double errorUtilizationPenalty;
  private final List<String> metricNames;
  // the named metrics' keys, without their map's prefix
  private final String[] metricKeys;

  private WeightedRoundRobinConfig(Builder b) {
    this.blackoutPeriod = b.blackoutPeriod;
    this.weightExpirationPeriod = b.weightExpirationPeriod;
    this.oobReportingPeriod = b.oobReportingPeriod;
    this.enableOobLoadReport = b.enableOobLoadReport;
    this.weightUpdatePeriod = b.weightUpdatePeriod;
    this.errorUtilizationPenalty = b.errorUtilizationPenalty;
    this.metricNames = b.metricNames;
    this.metricKeys = b.metricNames.stream().map(n -> n.substring(n.indexOf('.') + 1))
        .toArray(String[]::new);
  }

  /** Returns the defaults: A58's. */
  public static WeightedRoundRobinConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    return new Builder().blackoutPeriod(blackoutPeriod)
        .weightExpirationPeriod(weightExpirationPeriod).oobReportingPeriod(oobReportingPeriod)
        .enableOobLoadReport(enableOobLoadReport).weightUpdatePeriod(weightUpdatePeriod)
        .errorUtilizationPenalty(errorUtilizationPenalty)
        .metricNamesForComputingUtilization(metricNames);
  }

  /**
   * Returns how long an endpoint's reports must have been coming before its weight counts
   * (until then it gets the mean weight); default 10 s, 0 for none. The period starts again
   * when the weight expires.
   */
  public Duration blackoutPeriod() {
    return blackoutPeriod;
  }

  /**
   * Returns how long a weight holds with no new report; after that the endpoint gets the mean
   * weight again and goes through the blackout period anew; default 3 min.
   */
  public Duration weightExpirationPeriod() {
    return weightExpirationPeriod;
  }

  /** Returns the interval asked of servers for out-of-band reports; default 10 s. */
  public Duration oobReportingPeriod() {
    return oobReportingPeriod;
  }

  /**
   * Returns whether reports come from the out-of-band stream ({@code OpenRcaService/
   * StreamCoreMetrics}) rather than from each call's trailers; default false (per-call reports).
   * Read by the gRPC front end; lb-core takes reports from wherever they are fed.
   */
  public boolean enableOobLoadReport() {
    return enableOobLoadReport;
  }

  /** Returns how often weights are recomputed and the ring rebuilt if they moved; default 1 s. */
  public Duration weightUpdatePeriod() {
    return weightUpdatePeriod;
  }

  /** Returns how much each error per query counts as utilization; default 1.0, 0 for none. */
  public double errorUtilizationPenalty() {
    return errorUtilizationPenalty;
  }

  /**
   * Returns the named metrics whose largest value is a report's utilization when it gives no
   * {@code application_utilization} (Envoy's {@code metric_names_for_computing_utilization}),
   * as {@code named_metrics.NAME} or {@code utilization.NAME}; default none.
   */
  public List<String> metricNamesForComputingUtilization() {
    return metricNames;
  }

  /**
   * Returns the utilization a report gives under these settings: its {@code
   * application_utilization} if positive, else the largest of {@link
   * #metricNamesForComputingUtilization()} in it if positive, else its {@code cpu_utilization}.
   * A report keeps the {@code named_metrics} and {@code utilization} maps as one, so both
   * prefixes look up the same name.
   */
  public double utilization(LoadReport report) {
    if (report.applicationUtilization() > 0 || metricKeys.length == 0) {
      return report.utilization();
    }
    Map<String, Double> named = report.namedMetrics();
    double max = 0;
    for (String key : metricKeys) {
      Double v = named.get(key);
      if (v != null && v > max) {
        max = v;
      }
    }
    return max > 0 ? max : report.cpuUtilization(); // as Envoy: none above 0, the CPU's
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WeightedRoundRobinConfig c && blackoutPeriod.equals(c.blackoutPeriod)
        && weightExpirationPeriod.equals(c.weightExpirationPeriod)
        && oobReportingPeriod.equals(c.oobReportingPeriod)
        && enableOobLoadReport == c.enableOobLoadReport
        && weightUpdatePeriod.equals(c.weightUpdatePeriod)
        && Double.compare(errorUtilizationPenalty, c.errorUtilizationPenalty) == 0
        && metricNames.equals(c.metricNames);
  }

  @Override
  public int hashCode() {
    return Objects.hash(blackoutPeriod, weightExpirationPeriod, oobReportingPeriod,
        enableOobLoadReport, weightUpdatePeriod, errorUtilizationPenalty, metricNames);
  }

  @Override
  public String toString() {
    return "WeightedRoundRobinConfig" + LoadOptions.WEIGHTED_ROUND_ROBIN.encode(this);
  }

  /** Builds a {@link WeightedRoundRobinConfig}; every setter checks its argument. */
  public static final class Builder {
    private Duration blackoutPeriod = Duration.ofSeconds(10);
    private Duration weightExpirationPeriod = Duration.ofMinutes(3);
    private Duration oobReportingPeriod = Duration.ofSeconds(10);
    private boolean enableOobLoadReport;
    private Duration weightUpdatePeriod = Duration.ofSeconds(1);
    private double errorUtilizationPenalty = 1.0;
    private List<String> metricNames = List.of();

    private Builder() {}

    /** Sets the blackout period, &gt;= 0 (0 for none); default 10 s. */
    public Builder blackoutPeriod(Duration period) {
      this.blackoutPeriod = check("blackoutPeriod", period, true);
      return this;
    }

    /** Sets the weight expiration period, &gt; 0; default 3 min. */
    public Builder weightExpirationPeriod(Duration period) {
      this.weightExpirationPeriod = check("weightExpirationPeriod", period, false);
      return this;
    }

    /** Sets the out-of-band reporting period, &gt; 0; default 10 s. */
    public Builder oobReportingPeriod(Duration period) {
      this.oobReportingPeriod = check("oobReportingPeriod", period, false);
      return this;
    }

    /** Sets whether reports come from the out-of-band stream; default false. */
    public Builder enableOobLoadReport(boolean enable) {
      this.enableOobLoadReport = enable;
      return this;
    }

    /**
     * Sets the weight update period, &gt; 0; default 1 s; below {@link
     * #MIN_WEIGHT_UPDATE_PERIOD} (100 ms) it is raised to it, as gRPC does.
     */
    public Builder weightUpdatePeriod(Duration period) {
      Duration p = check("weightUpdatePeriod", period, false);
      this.weightUpdatePeriod = p.compareTo(MIN_WEIGHT_UPDATE_PERIOD) < 0
          ? MIN_WEIGHT_UPDATE_PERIOD : p;
      return this;
    }

    /** Sets the error utilization penalty, &gt;= 0 and finite; default 1.0. */
    public Builder errorUtilizationPenalty(double penalty) {
      if (!(penalty >= 0) || Double.isInfinite(penalty)) {
        throw new IllegalArgumentException(
            "errorUtilizationPenalty: " + penalty + " (expected: >= 0, 0 for none)");
      }
      this.errorUtilizationPenalty = penalty;
      return this;
    }

    /**
     * Sets the named metrics whose largest value is a report's utilization when it gives no
     * {@code application_utilization}, each {@code named_metrics.NAME} or {@code
     * utilization.NAME} (Envoy's form; {@code request_cost} values are not kept, so not
     * allowed); default none (then {@code cpu_utilization}).
     *
     * @throws IllegalArgumentException naming the first name of another form
     */
    public Builder metricNamesForComputingUtilization(List<String> names) {
      Objects.requireNonNull(names, "metricNamesForComputingUtilization");
      for (int i = 0; i < names.size(); i++) {
        String n = names.get(i);
        int dot = n == null ? -1 : n.indexOf('.');
        String map = dot < 0 ? "" : n.substring(0, dot);
        if (dot < 0 || dot == n.length() - 1
            || !(map.equals("named_metrics") || map.equals("utilization"))) {
          throw new IllegalArgumentException("metricNamesForComputingUtilization[" + i + "]: "
              + (n == null ? "null" : "\"" + n + "\"")
              + " (expected: named_metrics.NAME or utilization.NAME)");
        }
      }
      this.metricNames = List.copyOf(names);
      return this;
    }

    private static Duration check(String name, Duration d, boolean zeroAllowed) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || (!zeroAllowed && d.isZero())) {
        throw new IllegalArgumentException(
            name + ": " + d + (zeroAllowed ? " (expected: >= 0)" : " (expected: > 0)"));
      }
      if (d.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
        throw new IllegalArgumentException(name + ": " + d
            + " (expected: at most Long.MAX_VALUE nanoseconds, about 292 years)");
      }
      return d;
    }

    /** Builds the settings. */
    public WeightedRoundRobinConfig build() {
      return new WeightedRoundRobinConfig(this);
    }
  }
}

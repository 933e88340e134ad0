package dev.ballast.core.load;

import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import java.util.List;

/**
 * The options of server-reported load by name: {@link #WEIGHTED_ROUND_ROBIN}, gRFC A58's fields
 * of gRPC's {@code weighted_round_robin} policy, read by lb-core's {@code weighted_round_robin}
 * and {@code p2c_utilization} algorithms.
 */
public final class LoadOptions {

  private LoadOptions() {}

  /**
   * The options of {@link WeightedRoundRobinConfig}: {@code blackoutPeriod}, {@code
   * weightExpirationPeriod}, {@code oobReportingPeriod}, {@code enableOobLoadReport}, {@code
   * weightUpdatePeriod}, {@code errorUtilizationPenalty}, and Envoy's {@code
   * metricNamesForComputingUtilization}; gRPC's JSON config of {@code weighted_round_robin}
   * decodes as it is.
   */
  public static final OptionSet<WeightedRoundRobinConfig, WeightedRoundRobinConfig.Builder>
      WEIGHTED_ROUND_ROBIN = OptionSet.of("weightedRoundRobin", WeightedRoundRobinConfig::builder,
          WeightedRoundRobinConfig.Builder::build, List.of(
              Option.of("blackoutPeriod", ValueType.DURATION,
                  WeightedRoundRobinConfig::blackoutPeriod,
                  WeightedRoundRobinConfig.Builder::blackoutPeriod, "30s", "-1s"),
              Option.of("weightExpirationPeriod", ValueType.DURATION,
                  WeightedRoundRobinConfig::weightExpirationPeriod,
                  WeightedRoundRobinConfig.Builder::weightExpirationPeriod, "1m", "0s"),
              Option.of("oobReportingPeriod", ValueType.DURATION,
                  WeightedRoundRobinConfig::oobReportingPeriod,
                  WeightedRoundRobinConfig.Builder::oobReportingPeriod, "5s", "0s"),
              Option.of("enableOobLoadReport", ValueType.BOOLEAN,
                  WeightedRoundRobinConfig::enableOobLoadReport,
                  WeightedRoundRobinConfig.Builder::enableOobLoadReport, "true", "sometimes"),
              Option.of("weightUpdatePeriod", ValueType.DURATION,
                  WeightedRoundRobinConfig::weightUpdatePeriod,
                  WeightedRoundRobinConfig.Builder::weightUpdatePeriod, "2s", "0s"),
              Option.of("errorUtilizationPenalty", ValueType.DOUBLE,
                  WeightedRoundRobinConfig::errorUtilizationPenalty,
                  WeightedRoundRobinConfig.Builder::errorUtilizationPenalty, "2.5", "-1"),
              Option.of("metricNamesForComputingUtilization", ValueType.STRINGS,
                  WeightedRoundRobinConfig::metricNamesForComputingUtilization,
                  WeightedRoundRobinConfig.Builder::metricNamesForComputingUtilization,
                  "named_metrics.queue", "request_cost.db")));
}

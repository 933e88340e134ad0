package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.P2cUtilization;
import dev.ballast.core.WeightedRoundRobin;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The policy configs of the algorithms that read load reports: gRPC's {@code
 * weighted_round_robin} fields ({@link LoadOptions#WEIGHTED_ROUND_ROBIN}) beside lb-core's
 * balancer options, in one JSON object, so that gRPC's own config of {@code
 * weighted_round_robin} is read as it is.
 */
final class ReportPolicies {

  private ReportPolicies() {}

  static PolicyConfig decode(Algorithm algorithm, Map<String, ?> json) {
    OptionSet.checkDepth(json);
    Map<String, Object> reports = new LinkedHashMap<>();
    Map<String, Object> rest = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : json.entrySet()) {
      boolean ours = LoadOptions.WEIGHTED_ROUND_ROBIN.find(e.getKey()) != null;
      (ours ? reports : rest).put(e.getKey(), e.getValue());
    }
    WeightedRoundRobinConfig w = LoadOptions.WEIGHTED_ROUND_ROBIN.decode(reports);
    BalancerConfig b = PolicyConfig.BALANCER_OPTIONS.decode(rest);
    Map<String, Object> options = new LinkedHashMap<>(PolicyConfig.BALANCER_OPTIONS.encode(b));
    options.putAll(LoadOptions.WEIGHTED_ROUND_ROBIN.encode(w));
    return new PolicyConfig(algorithm, Map.copyOf(options), b, HashConfig.defaults());
  }

  /** Returns the config's A58 settings, decoded from its options. */
  static WeightedRoundRobinConfig reports(PolicyConfig c) {
    Map<String, Object> reports = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : c.options().entrySet()) {
      if (LoadOptions.WEIGHTED_ROUND_ROBIN.find(e.getKey()) != null) {
        reports.put(e.getKey(), e.getValue());
      }
    }
    return LoadOptions.WEIGHTED_ROUND_ROBIN.decode(reports);
  }

  static <T> Balancer<T> create(PolicyConfig c, BalancerConfig balancer) {
    WeightedRoundRobinConfig w = reports(c);
    return c.algorithm() == Algorithm.WEIGHTED_ROUND_ROBIN
        ? new WeightedRoundRobin<>(balancer, w) : new P2cUtilization<>(balancer, w);
  }
}

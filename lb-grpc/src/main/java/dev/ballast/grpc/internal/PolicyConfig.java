package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.OptionSet;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.Map;

/**
 * The parsed config of an algorithm policy: lb-core's options decoded by lb-core's own codec
 * ({@link CoreOptions#BALANCER}, or {@link CoreOptions#HASH} for the policies that pick by key),
 * so that a field has the name, default and error it has in every front end. Two configs are
 * equal when their options are, so that a re-resolution with the same config keeps the balancer
 * and its load state.
 *
 * @param algorithm the algorithm
 * @param options the options as lb-core writes them back (non-default ones only)
 * @param balancer the balancer options; panic picks are never on (a gRPC picker hands out READY
 *     subchannels only)
 * @param hash the key-picking options
 */
public record PolicyConfig(Algorithm algorithm, Map<String, Object> options,
    BalancerConfig balancer, HashConfig hash) {

  /** The balancer options a gRPC policy takes: all but {@code panicPick}. */
  public static final OptionSet<BalancerConfig, BalancerConfig.Builder> BALANCER_OPTIONS =
      CoreOptions.BALANCER.without("panicPick");

  /** Returns the config with every field at its default. */
  public static PolicyConfig defaults(Algorithm algorithm) {
    return decode(algorithm, null);
  }

  /** Parses a policy's JSON config; a bad field comes back as an error naming it, never thrown. */
  public static ConfigOrError parse(Algorithm algorithm, String policyName, Map<String, ?> json) {
    try {
      return ConfigOrError.fromConfig(decode(algorithm, json));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(policyName + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString())).withCause(e));
    }
  }

  /**
   * Decodes a policy's JSON config.
   *
   * @throws dev.ballast.core.config.OptionException naming the bad field
   */
  public static PolicyConfig decode(Algorithm algorithm, Map<String, ?> json) {
    if (algorithm.picksByKey()) {
      HashConfig h = CoreOptions.HASH.decode(json);
      return new PolicyConfig(algorithm, CoreOptions.HASH.encode(h), BalancerConfig.defaults(), h);
    }
    if (algorithm.readsReports() && json != null) {
      return ReportPolicies.decode(algorithm, json);
    }
    BalancerConfig b = BALANCER_OPTIONS.decode(json);
    return new PolicyConfig(algorithm, BALANCER_OPTIONS.encode(b), b, HashConfig.defaults());
  }

  /**
   * Returns the config's {@link dev.ballast.core.load.LoadOptions#WEIGHTED_ROUND_ROBIN}
   * options (gRFC A58's), the defaults for an algorithm that reads no load reports.
   */
  public dev.ballast.core.load.WeightedRoundRobinConfig reports() {
    return algorithm.readsReports() ? ReportPolicies.reports(this)
        : dev.ballast.core.load.WeightedRoundRobinConfig.defaults();
  }

  /**
   * Creates a balancer of this config's algorithm over {@code base}'s time and random sources;
   * the algorithms that read load reports also get their {@link
   * dev.ballast.core.load.LoadOptions#WEIGHTED_ROUND_ROBIN} options.
   */
  public <T> dev.ballast.core.Balancer<T> create(BalancerConfig base) {
    return algorithm.readsReports() ? ReportPolicies.create(this, balancerOver(base))
        : algorithm.create(balancerOver(base));
  }

  /** Returns the balancer options over {@code base}'s time and random sources, panic picks off. */
  public BalancerConfig balancerOver(BalancerConfig base) {
    return balancer.toBuilder().ticker(base.ticker()).random(base.random()).panicPick(false)
        .build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PolicyConfig p && algorithm == p.algorithm && options.equals(p.options);
  }

  @Override
  public int hashCode() {
    return algorithm.hashCode() * 31 + options.hashCode();
  }

  @Override
  public String toString() {
    return algorithm.id() + options;
  }
}

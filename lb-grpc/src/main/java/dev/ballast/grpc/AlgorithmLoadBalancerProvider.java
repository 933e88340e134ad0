package dev.ballast.grpc;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.internal.AlgorithmPolicyConfig;
import dev.ballast.grpc.internal.BalancerLoadBalancer;
import dev.ballast.grpc.internal.HashLoadBalancer;
import dev.ballast.grpc.internal.HashPolicyConfig;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import java.util.Objects;

/**
 * A gRPC policy named after an lb-core {@link Algorithm} and balancing with it: one subchannel
 * per address group, one lb-core balancer per channel, READY subchannels only. The concrete
 * providers ({@link VnswrrLoadBalancerProvider}, ...) are registered through {@code
 * META-INF/services/io.grpc.LoadBalancerProvider}; register an instance made with a custom
 * {@link BalancerConfig} (e.g. a seeded random source) in a {@code LoadBalancerRegistry} to
 * replace one. The algorithms that pick by key get their own load balancer ({@link
 * HashLoadBalancerProvider}).
 */
public abstract class AlgorithmLoadBalancerProvider extends LoadBalancerProvider {

  private final Algorithm algorithm;
  private final String policyName;
  private final BalancerConfig base;

  /**
   * Creates the provider, named after the algorithm.
   *
   * @param base settings the service config's fields are applied to; panic picks are always off
   */
  protected AlgorithmLoadBalancerProvider(Algorithm algorithm, BalancerConfig base) {
    this(algorithm, Objects.requireNonNull(algorithm, "algorithm").id(), base);
  }

  /**
   * Creates the provider under a policy name of its own (for a name gRPC already uses).
   *
   * @param base settings the service config's fields are applied to; panic picks are always off
   */
  protected AlgorithmLoadBalancerProvider(Algorithm algorithm, String policyName,
      BalancerConfig base) {
    this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
    this.policyName = Objects.requireNonNull(policyName, "policyName");
    this.base = Objects.requireNonNull(base, "base");
  }

  /** Returns the algorithm this policy balances with. */
  public final Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public final boolean isAvailable() {
    return true;
  }

  /** Returns 5, the priority of gRPC's built-in policies. */
  @Override
  public final int getPriority() {
    return 5;
  }

  /** Returns the policy name: the algorithm's id, e.g. {@code p2c_peak_ewma}, unless given. */
  @Override
  public final String getPolicyName() {
    return policyName;
  }

  @Override
  public final LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return algorithm.picksByKey() ? new HashLoadBalancer(helper, algorithm, policyName, base)
        : new BalancerLoadBalancer(helper, algorithm, base);
  }

  /**
   * Parses the policy's JSON config; a bad value is returned as an error naming the field, never
   * thrown. Fields: every policy but the key-picking ones: {@code slowStart} ({@code {"window":
   * "60s", "aggression": 1.0, "minWeightPercent": 10}}, off when absent); {@code p2c_peak_ewma}:
   * {@code decayTime} (default "10s", &gt; 0), {@code defaultRtt} (default "30ms", &gt;= 0),
   * {@code failurePenalty} (default 2.0, &gt;= 1); {@code swrr}: {@code maxFails} (default 1,
   * &gt; 0); {@code aperture}: {@code clientIndex} and {@code clientCount} (default 0 of 1); the
   * key-picking ones: see {@link HashLoadBalancerProvider}. Durations are
   * strings: a number and one of ns, us, ms, s, m, h.
   */
  @Override
  public final ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return algorithm.picksByKey() ? HashPolicyConfig.parse(algorithm, policyName, rawConfig)
        : AlgorithmPolicyConfig.parse(algorithm, rawConfig);
  }
}

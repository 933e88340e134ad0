package dev.ballast.grpc;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.internal.PolicyConfig;

/**
 * The gRPC policy of one of lb-core's own balancing policies, found by name in its registry as a
 * team's is ({@link PolicyLoadBalancerProvider}): one subchannel per address group, one lb-core
 * balancer per channel, READY subchannels only. The concrete providers ({@link
 * VnswrrLoadBalancerProvider}, ...) are registered through {@code
 * META-INF/services/io.grpc.LoadBalancerProvider}; register an instance made with a custom
 * {@link BalancerConfig} (e.g. a seeded random source) in a {@code LoadBalancerRegistry} to
 * replace one. By the policy's traits: one that picks by key gets each call's key ({@link
 * HashLoadBalancerProvider}), one that reads load reports ORCA's with lb-grpc-orca. With
 * grpc-services on the class path, a service config's {@code healthCheckConfig} turns on gRPC's
 * client-side health checking (gRFC A17): a NOT_SERVING server takes no call until SERVING.
 */
public abstract class AlgorithmLoadBalancerProvider extends PolicyLoadBalancerProvider {

  /**
   * The options the algorithm policies take: lb-core's {@link
   * dev.ballast.core.policy.CoreOptions#BALANCER} but {@code panicPick}. The key-picking ones
   * take {@link dev.ballast.core.policy.CoreOptions#HASH}.
   */
  public static final dev.ballast.core.config.OptionSet<BalancerConfig, BalancerConfig.Builder>
      OPTIONS = PolicyConfig.BALANCER_OPTIONS;

  /**
   * Creates the provider of a policy of lb-core's registry under its registered name.
   *
   * @param policy the policy's name in lb-core's registry, e.g. {@code vnswrr}
   * @param base settings the service config's fields are applied to; panic picks are always off
   */
  protected AlgorithmLoadBalancerProvider(String policy, BalancerConfig base) {
    super(policy, policy, base);
  }

  /**
   * Creates the provider of a policy of lb-core's registry under a gRPC name of its own.
   *
   * @param policy the policy's name in lb-core's registry, e.g. {@code vnswrr}
   * @param policyName the name a service config gives (for a name gRPC already uses)
   * @param base settings the service config's fields are applied to; panic picks are always off
   */
  protected AlgorithmLoadBalancerProvider(String policy, String policyName, BalancerConfig base) {
    super(policy, policyName, base);
  }

  /**
   * Creates the provider, named after the algorithm.
   *
   * @param base settings the service config's fields are applied to; panic picks are always off
   * @deprecated name the policy: {@link #AlgorithmLoadBalancerProvider(String, String,
   *     BalancerConfig)}
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  protected AlgorithmLoadBalancerProvider(Algorithm algorithm, BalancerConfig base) {
    this(algorithm.id(), algorithm.id(), base);
  }

  /**
   * Creates the provider under a policy name of its own (for a name gRPC already uses).
   *
   * @param base settings the service config's fields are applied to; panic picks are always off
   * @deprecated name the policy: {@link #AlgorithmLoadBalancerProvider(String, String,
   *     BalancerConfig)}
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  protected AlgorithmLoadBalancerProvider(Algorithm algorithm, String policyName,
      BalancerConfig base) {
    this(algorithm.id(), policyName, base);
  }

  /**
   * Returns the algorithm this policy balances with.
   *
   * @deprecated the policy is found by name in lb-core's registry: {@link #policy()}
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public final Algorithm algorithm() {
    return Algorithm.fromName(policy().name());
  }
}

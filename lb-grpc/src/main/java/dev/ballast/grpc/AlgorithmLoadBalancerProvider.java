package dev.ballast.grpc;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.internal.BalancerLoadBalancer;
import dev.ballast.grpc.internal.HashLoadBalancer;
import dev.ballast.grpc.internal.HealthChecking;
import dev.ballast.grpc.internal.PolicyConfig;
import dev.ballast.grpc.spi.ReportFeed;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A gRPC policy named after an lb-core {@link Algorithm} and balancing with it: one subchannel
 * per address group, one lb-core balancer per channel, READY subchannels only. The concrete
 * providers ({@link VnswrrLoadBalancerProvider}, ...) are registered through {@code
 * META-INF/services/io.grpc.LoadBalancerProvider}; register an instance made with a custom
 * {@link BalancerConfig} (e.g. a seeded random source) in a {@code LoadBalancerRegistry} to
 * replace one. By the algorithm's policy traits: one that picks by key gets each call's key
 * ({@link HashLoadBalancerProvider}), one that reads load reports ORCA's with lb-grpc-orca. With
 * grpc-services on the class path, a service config's {@code healthCheckConfig} turns on gRPC's
 * client-side health checking (gRFC A17): a NOT_SERVING server takes no call until SERVING.
 */
public abstract class AlgorithmLoadBalancerProvider extends LoadBalancerProvider {

  /**
   * The options the algorithm policies take: lb-core's {@link
   * dev.ballast.core.policy.CoreOptions#BALANCER} but {@code panicPick}. The key-picking ones
   * take {@link dev.ballast.core.policy.CoreOptions#HASH}.
   */
  public static final dev.ballast.core.config.OptionSet<BalancerConfig, BalancerConfig.Builder>
      OPTIONS = PolicyConfig.BALANCER_OPTIONS;

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
    Set<Trait> traits = ConfiguredPolicy.named(algorithm.id()).traits();
    return HealthChecking.wrap(helper, h -> traits.contains(Trait.PICKS_BY_KEY)
        ? new HashLoadBalancer(h, algorithm, policyName, base)
        : traits.contains(Trait.READS_REPORTS) ? ReportFeed.of(h,
            x -> new BalancerLoadBalancer(x, algorithm, base, policyName), base)
        : new BalancerLoadBalancer(h, algorithm, base));
  }

  /**
   * Parses the policy's JSON config with lb-core's codec; a bad value is returned as an error
   * naming the field and the nearest known one, never thrown. Fields: those of {@link
   * dev.ballast.core.policy.CoreOptions#BALANCER} but {@code panicPick} (a gRPC picker never
   * hands out a subchannel that is not READY), e.g. {@code {"decayTime": "5s", "slowStart":
   * {"window": "60s"}, "aperture": {"clientIndex": 3, "clientCount": 8}}}; the key-picking
   * policies take those of {@link dev.ballast.core.policy.CoreOptions#HASH} instead (see {@link
   * HashLoadBalancerProvider}). Durations are strings: a number and one of ns, us, ms, s, m, h,
   * d.
   */
  @Override
  public final ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return PolicyConfig.parse(algorithm, policyName, rawConfig);
  }
}

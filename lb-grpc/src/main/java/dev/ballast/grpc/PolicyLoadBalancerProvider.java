package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.internal.BalancerLoadBalancer;
import dev.ballast.grpc.internal.HashLoadBalancer;
import dev.ballast.grpc.internal.HealthChecking;
import dev.ballast.grpc.internal.PolicyConfig;
import dev.ballast.grpc.spi.ReportFeed;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.Map;
import java.util.Objects;

/**
 * A gRPC policy over a balancing policy registered in lb-core's {@link PolicyRegistry}, lb-core's
 * own (every Ballast gRPC policy is one of these) or a team's (see {@link BalancingPolicy}),
 * under the same name unless given: one subchannel per address group, one balancer per channel,
 * READY subchannels only, the service config's fields decoded once, by the policy's own options
 * and lb-core's balancer options. Register it as gRPC registers its policies, with a subclass in
 * {@code META-INF/services/io.grpc.LoadBalancerProvider}:
 *
 * <pre>{@code
 * public final class TenantPinProvider extends PolicyLoadBalancerProvider {
 *   public TenantPinProvider() {
 *     super("tenant_pin");
 *   }
 * }
 * }</pre>
 *
 * <p>or an instance in a {@code LoadBalancerRegistry}. Available while the policy is registered.
 * What a call gives the policy follows its {@linkplain BalancingPolicy#traits() traits}: one
 * that picks by key gets each call's key ({@link HashLoadBalancerProvider#REQUEST_KEY}, or the
 * header its {@code requestHashHeader} names when its options are {@link
 * dev.ballast.core.policy.CoreOptions#HASH}), one that reads load reports
 * its servers' ORCA reports when lb-grpc-orca is on the class path (configured by gRPC's {@code
 * weighted_round_robin} fields when its options are those); with grpc-services on the class
 * path a service config's {@code healthCheckConfig} turns on gRPC's client-side health checking
 * (gRFC A17).
 */
public class PolicyLoadBalancerProvider extends LoadBalancerProvider {

  private final String policy;
  private final String policyName;
  private final BalancerConfig base;

  /** Creates the provider of a registered policy with lb-core's default settings. */
  public PolicyLoadBalancerProvider(String policyName) {
    this(policyName, BalancerConfig.defaults());
  }

  /**
   * Creates the provider of a registered policy, under its registered name.
   *
   * @param base the settings the service config's fields are applied to (e.g. a seeded random
   *     source); panic picks are always off
   */
  public PolicyLoadBalancerProvider(String policyName, BalancerConfig base) {
    this(policyName, policyName, base);
  }

  /**
   * Creates the provider of a registered policy under a gRPC name of its own (for a name gRPC
   * already uses, e.g. {@code ballast_ring_hash} for lb-core's {@code ring_hash}).
   *
   * @param policy the policy's name in lb-core's {@link PolicyRegistry}
   * @param policyName the name a service config gives
   * @param base the settings the service config's fields are applied to (e.g. a seeded random
   *     source); panic picks are always off
   */
  public PolicyLoadBalancerProvider(String policy, String policyName, BalancerConfig base) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.policyName = Objects.requireNonNull(policyName, "policyName");
    this.base = Objects.requireNonNull(base, "base");
  }

  /**
   * Returns the policy, found by its name in lb-core's default registry (for lb-core's own, e.g.
   * {@code ring_hash} under the gRPC name {@code ballast_ring_hash}).
   *
   * @throws dev.ballast.core.config.OptionException if it is not registered
   */
  public final BalancingPolicy<?> policy() {
    return ConfiguredPolicy.named(policy);
  }

  /**
   * Returns whether the policy is registered in lb-core's default registry; when it is not,
   * logs a WARNING saying so and how to register it, since gRPC's registry then leaves out, with
   * no word, a provider it found through {@code ServiceLoader}.
   */
  @Override
  public boolean isAvailable() {
    boolean registered = PolicyRegistry.defaultRegistry().find(policy).isPresent();
    if (!registered) {
      System.getLogger(PolicyLoadBalancerProvider.class.getName()).log(
          System.Logger.Level.WARNING, () -> "gRPC policy " + getPolicyName() + " is not"
              + " available: no balancing policy named " + policy + " is registered in lb-core"
              + " (expected: PolicyRegistry.defaultRegistry().register(...) or a"
              + " META-INF/services/dev.ballast.core.policy.BalancingPolicy entry, before gRPC's"
              + " LoadBalancerRegistry is first read)");
    }
    return registered;
  }

  /** Returns 5, the priority of gRPC's built-in policies. */
  @Override
  public int getPriority() {
    return 5;
  }

  /** Returns the name a service config gives, the policy's registered name unless given. */
  @Override
  public String getPolicyName() {
    return policyName;
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    BalancingPolicy<?> p = policy();
    return HealthChecking.wrap(helper, h -> p.traits().contains(Trait.PICKS_BY_KEY)
        ? HashLoadBalancer.of(h, p, policyName, base) : p.traits().contains(Trait.READS_REPORTS)
        ? ReportFeed.of(h, x -> BalancerLoadBalancer.of(x, p, policyName, base), base)
        : BalancerLoadBalancer.of(h, p, policyName, base));
  }

  /**
   * Decodes the policy's JSON config once: its own options, and lb-core's {@link
   * dev.ballast.core.policy.CoreOptions#BALANCER} options but {@code panicPick} (a gRPC picker
   * never hands out a subchannel that is not READY) over the base settings, e.g. {@code
   * {"decayTime": "5s", "slowStart": {"window": "60s"}}}; a policy that picks by key takes its
   * own only. Durations are strings: a number and one of ns, us, ms, s, m, h, d. A bad field
   * comes back as an error naming it and the nearest the policy takes, never thrown.
   */
  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    BalancingPolicy<?> p;
    try {
      p = policy();
    } catch (RuntimeException e) {
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(policyName + " config: "
          + e.getMessage()).withCause(e));
    }
    return PolicyConfig.parse(p, policyName, base, rawConfig);
  }
}

package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.internal.BalancerLoadBalancer;
import dev.ballast.grpc.internal.HashLoadBalancer;
import dev.ballast.grpc.internal.HealthChecking;
import dev.ballast.grpc.spi.ReportFeed;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.Map;
import java.util.Objects;

/**
 * A gRPC policy over a balancing policy registered in lb-core's {@link PolicyRegistry} (a team's
 * own, see {@link BalancingPolicy}), under the same name: one subchannel per address group, one
 * balancer per channel, READY subchannels only, the service config's fields decoded once by the
 * policy's own options. Register it as gRPC registers its policies, with a subclass in {@code
 * META-INF/services/io.grpc.LoadBalancerProvider}:
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
 * What a call gives the policy follows its {@linkplain BalancingPolicy#traits() traits}, as for
 * lb-core's algorithms: one that picks by key gets each call's key ({@link
 * HashLoadBalancerProvider#REQUEST_KEY}, or the header its {@code requestHashHeader} names when
 * its options are {@link dev.ballast.core.policy.CoreOptions#HASH}), one that reads load reports
 * its servers' ORCA reports when lb-grpc-orca is on the class path (configured by gRPC's {@code
 * weighted_round_robin} fields when its options are those); with grpc-services on the class path a service config's {@code healthCheckConfig} turns on gRPC's
 * client-side health checking (gRFC A17), as for every Ballast policy.
 */
public class PolicyLoadBalancerProvider extends LoadBalancerProvider {

  private final String policyName;
  private final BalancerConfig base;

  /** Creates the provider of a registered policy with lb-core's default settings. */
  public PolicyLoadBalancerProvider(String policyName) {
    this(policyName, BalancerConfig.defaults());
  }

  /**
   * Creates the provider of a registered policy.
   *
   * @param base the settings every balancer reads (e.g. a seeded random source); panic picks are
   *     always off
   */
  public PolicyLoadBalancerProvider(String policyName, BalancerConfig base) {
    this.policyName = Objects.requireNonNull(policyName, "policyName");
    this.base = Objects.requireNonNull(base, "base");
  }

  private BalancingPolicy<?> policy() {
    return PolicyRegistry.defaultRegistry().get(policyName);
  }

  /** Returns whether the policy is registered in lb-core's default registry. */
  @Override
  public boolean isAvailable() {
    return PolicyRegistry.defaultRegistry().find(policyName).isPresent();
  }

  /** Returns 5, the priority of gRPC's built-in policies. */
  @Override
  public int getPriority() {
    return 5;
  }

  /** Returns the policy's name as given. */
  @Override
  public String getPolicyName() {
    return policyName;
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    BalancingPolicy<?> policy = policy();
    return HealthChecking.wrap(helper, h -> policy.traits().contains(Trait.PICKS_BY_KEY)
        ? HashLoadBalancer.of(h, policy, base) : policy.traits().contains(Trait.READS_REPORTS)
        ? ReportFeed.of(h, x -> BalancerLoadBalancer.of(x, policy, base), base)
        : BalancerLoadBalancer.of(h, policy, base));
  }

  /**
   * Decodes the policy's own options from its JSON config; a bad field comes back as an error
   * naming it and the nearest the policy takes, never thrown.
   */
  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    try {
      return ConfigOrError.fromConfig(ConfiguredPolicy.decode(policy(), rawConfig));
    } catch (RuntimeException e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(policyName + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString())).withCause(e));
    }
  }
}

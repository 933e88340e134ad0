package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.internal.HealthChecking;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * What the policies that split endpoints into groups balanced by a child policy share ({@code
 * label_subset}, {@code locality}): a name, the lb-core settings their children start from,
 * gRPC's built-in priority, and client-side health checking when a service config asks for it.
 */
abstract class CompositeLoadBalancerProvider extends LoadBalancerProvider {

  private final String policyName;
  private final BalancerConfig base;
  private final BiFunction<LoadBalancer.Helper, BalancerConfig, LoadBalancer> make;
  private final BiFunction<Map<String, ?>, BalancerConfig, ConfigOrError> parse;

  CompositeLoadBalancerProvider(String policyName, BalancerConfig base,
      BiFunction<LoadBalancer.Helper, BalancerConfig, LoadBalancer> make,
      BiFunction<Map<String, ?>, BalancerConfig, ConfigOrError> parse) {
    this.policyName = policyName;
    this.base = Objects.requireNonNull(base, "base");
    this.make = make;
    this.parse = parse;
  }

  /** Returns true: the policy needs nothing beyond lb-grpc. */
  @Override
  public final boolean isAvailable() {
    return true;
  }

  /** Returns 5, the priority of gRPC's built-in policies. */
  @Override
  public final int getPriority() {
    return 5;
  }

  /** Returns the policy's name. */
  @Override
  public final String getPolicyName() {
    return policyName;
  }

  /** Creates the policy for one channel, with health checking when the config asks for it. */
  @Override
  public final LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return HealthChecking.wrap(helper, h -> make.apply(h, base));
  }

  /**
   * Parses the config, a Ballast child's balancer options over the base settings; a bad value is
   * returned as an error naming the field, never thrown.
   */
  @Override
  public final ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return parse.apply(rawConfig, base);
  }
}

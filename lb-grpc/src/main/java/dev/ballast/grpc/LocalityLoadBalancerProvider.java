package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.internal.LocalitySwitch;
import dev.ballast.grpc.internal.LocalityPolicyConfig;

/**
 * The gRPC policy {@code locality}: priorities, localities and zone-aware routing after Envoy
 * (lb-core's {@link dev.ballast.core.locality.LocalityBalancer}) from the endpoints' {@code
 * priority}, {@code zone} and {@code health} labels ({@link EndpointAttributes#LABELS}), with a
 * child policy balancing inside each locality: a Ballast algorithm, or one of gRPC's registered
 * policies ({@code round_robin}, {@code pick_first}, ...; one child load balancer per locality,
 * fed that locality's addresses; those that pick by key are refused). Config (service-config
 * JSON):
 *
 * <pre>{@code
 * {"localZone": "a",                          the caller's zone; none: zone-aware routing off
 *  "callerZones": {"a": 3, "b": 2, "c": 1},   the callers' shares by zone
 *  "minClusterSize": 6,                       default
 *  "overprovisioningFactor": 1.4,             default
 *  "panicThreshold": 50,                      default, percent
 *  "childPolicy": [{"p2c_peak_ewma": {}}]}    default [{"vnswrr": {}}] (weighted round robin);
 *                                             [{"round_robin": {}}]: gRPC's round_robin
 * }</pre>
 */
public final class LocalityLoadBalancerProvider extends CompositeLoadBalancerProvider {

  /** The policy name, {@code locality}. */
  public static final String POLICY_NAME = LocalityPolicyConfig.NAME;

  /** Creates the provider with lb-core's default settings for the child balancers. */
  public LocalityLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public LocalityLoadBalancerProvider(BalancerConfig base) {
    super(POLICY_NAME, base, LocalitySwitch::new, LocalityPolicyConfig::parse);
  }
}

package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.locality.LocalityConfig;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parsed config of {@code locality}: lb-core's {@link CoreOptions#LOCALITY} options, decoded
 * by lb-core's codec, and gRPC's {@code childPolicy} list (the policy inside each locality):
 *
 * <pre>{@code
 * {"localZone": "a",                          the caller's zone; none: zone-aware routing off
 *  "callerZones": {"a": 3, "b": 2, "c": 1},   the callers' shares by zone
 *  "minClusterSize": 6,                       default
 *  "overprovisioningFactor": 1.4,             default
 *  "panicThreshold": 50,                      default, percent
 *  "childPolicy": [{"p2c_peak_ewma": {}}]}    first known; default vnswrr (weighted);
 *                                             ring_hash, ketama, maglev get the call's key;
 *                                             another name: gRPC's registered policy
 * }</pre>
 *
 * <p>Ballast's algorithms balance inside a locality over the locality layer's own nodes ({@code
 * child}). Any other name that gRPC's {@link LoadBalancerRegistry} knows ({@code round_robin},
 * {@code pick_first}, {@code weighted_round_robin}, a policy of your own) becomes one child load
 * balancer per locality ({@code grpcChild}), except those that pick by key.
 *
 * @param locality the priority, locality and zone options
 * @param child the Ballast child's config, or null with a gRPC child
 * @param grpcChild the gRPC child, or null with a Ballast child
 */
public record LocalityPolicyConfig(LocalityConfig locality, PolicyConfig child,
    GrpcChild grpcChild) {

  /** The policy name. */
  public static final String NAME = "locality";
  /** The Ballast algorithms a locality takes as its child ({@code round_robin} is gRPC's). */
  static List<String> ballastChildren() {
    return LabelSubsetPolicyConfig.children(true).stream()
        .filter(n -> !n.equals("round_robin")).toList();
  }

  private static List<String> known() {
    return java.util.stream.Stream.concat(ballastChildren().stream(), java.util.stream.Stream.of(
        "round_robin", "pick_first", "weighted_round_robin", "least_request_experimental"))
        .toList();
  }

  // gRPC's children run behind grpc-util's forwarding helpers (grpc-util is optional to lb-grpc)
  private static final boolean UTIL =
      ClassPresence.present("io.grpc.util.ForwardingLoadBalancerHelper");

  /**
   * A child policy from gRPC's registry: one load balancer of it per locality.
   *
   * @param name the policy's name
   * @param provider its provider
   * @param config its parsed config
   */
  public record GrpcChild(String name, LoadBalancerProvider provider, Object config) { }

  /**
   * Parses the JSON config, a Ballast child's balancer options over a provider's base settings;
   * a bad field comes back as an error naming it, never thrown.
   */
  public static ConfigOrError parse(Map<String, ?> json, BalancerConfig base) {
    try {
      Map<String, Object> options = new LinkedHashMap<>(json == null ? Map.of() : json);
      OptionSet.checkDepth(options);
      Object children = options.remove("childPolicy");
      LocalityConfig locality = CoreOptions.LOCALITY.decode(options);
      // the default child weighs endpoints, as Envoy's default round robin does
      Object child = children == null
          ? PolicyConfig.decode(ConfiguredPolicy.named("vnswrr"), null, base)
          : child(children, base);
      return ConfigOrError.fromConfig(child instanceof GrpcChild g
          ? new LocalityPolicyConfig(locality, null, g)
          : new LocalityPolicyConfig(locality, (PolicyConfig) child, null));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(NAME + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString())).withCause(e));
    }
  }

  /** gRPC's convention: the first entry whose name is known wins; a PolicyConfig or GrpcChild. */
  private static Object child(Object list, BalancerConfig base) {
    if (!(list instanceof List<?> entries)) {
      return LabelSubsetPolicyConfig.child(list, ballastChildren(), base); // throws, naming it
    }
    List<String> seen = new ArrayList<>();
    for (Object entry : entries) {
      if (!(entry instanceof Map<?, ?> m) || m.size() != 1
          || ballastChildren().contains(String.valueOf(m.keySet().iterator().next()))) {
        Object child = LabelSubsetPolicyConfig.child(List.of(entry), ballastChildren(), base);
        SkippedChildren.say(seen, ((Map<?, ?>) entry).keySet().iterator().next().toString(),
            known()); // a Ballast child: the call above threw for any other entry
        return child;
      }
      String name = String.valueOf(m.keySet().iterator().next());
      Object json = m.values().iterator().next();
      LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider(name);
      if (provider == null) {
        seen.add(name);
        continue;
      }
      if (provider instanceof dev.ballast.grpc.HashLoadBalancerProvider
          || name.startsWith("ring_hash")) {
        throw new IllegalArgumentException("childPolicy: " + name + " picks by the call's key,"
            + " which locality passes only to Ballast's own ring_hash, ketama and maglev"
            + " (expected: one of those, or a policy that picks without a key)");
      }
      if (name.equals(NAME)) {
        throw new IllegalArgumentException("childPolicy: locality inside locality (expected: a"
            + " policy that balances inside one locality, e.g. round_robin)");
      }
      if (json != null && !(json instanceof Map)) {
        throw new IllegalArgumentException("childPolicy: " + name + ": "
            + dev.ballast.core.config.ValueType.show(json) + " (expected: an object)");
      }
      @SuppressWarnings("unchecked")
      ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(
          json == null ? Map.of() : (Map<String, ?>) json);
      if (parsed.getError() != null) {
        throw new IllegalArgumentException("childPolicy: " + name + ": "
            + parsed.getError().getDescription());
      }
      if (!UTIL) {
        throw new IllegalArgumentException("childPolicy: " + name + " is gRPC's policy, which"
            + " locality runs through io.grpc:grpc-util (expected: grpc-util on the class path,"
            + " or one of " + ballastChildren() + ")");
      }
      SkippedChildren.say(seen, name, known());
      return new GrpcChild(name, provider, parsed.getConfig());
    }
    String first = seen.isEmpty() ? "" : seen.get(0);
    String near = first.isEmpty() ? null : SkippedChildren.nearestIfUnknown(first, known());
    // a gRPC policy whose jar is missing (weighted_round_robin comes with io.grpc:grpc-xds), or
    // a Ballast policy that cannot be a child
    String why = known().contains(first) ? first + " is a gRPC policy not registered here (its"
        + " jar is not on the class path, e.g. io.grpc:grpc-xds); "
        : LabelSubsetPolicyConfig.whyNotAChild(first, true); // locality passes the key on
    throw new IllegalArgumentException("childPolicy: none of " + seen + " is known (" + why
        + (near == null ? "" : "did you mean " + near + "? ") + "expected: one of "
        + ballastChildren() + " or a policy in gRPC's LoadBalancerRegistry, e.g. round_robin)");
  }
}

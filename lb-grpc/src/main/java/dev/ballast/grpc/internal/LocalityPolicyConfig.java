package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.locality.LocalityConfig;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parsed config of {@code locality}: lb-core's {@link CoreOptions#LOCALITY} options, decoded
 * by lb-core's codec, and gRPC's {@code childPolicy} list (the algorithm inside each locality):
 *
 * <pre>{@code
 * {"localZone": "a",                          the caller's zone; none: zone-aware routing off
 *  "callerZones": {"a": 3, "b": 2, "c": 1},   the callers' shares by zone
 *  "minClusterSize": 6,                       default
 *  "overprovisioningFactor": 1.4,             default
 *  "panicThreshold": 50,                      default, percent
 *  "childPolicy": [{"p2c_peak_ewma": {}}]}    first supported; default vnswrr (weighted);
 *                                             ring_hash, ketama, maglev get the call's key
 * }</pre>
 *
 * @param locality the priority, locality and zone options
 * @param child the child policy's config
 */
public record LocalityPolicyConfig(LocalityConfig locality, PolicyConfig child) {

  /** The policy name. */
  public static final String NAME = "locality";

  /** Parses the JSON config; a bad field comes back as an error naming it, never thrown. */
  public static ConfigOrError parse(Map<String, ?> json) {
    try {
      Map<String, Object> options = new LinkedHashMap<>(json == null ? Map.of() : json);
      OptionSet.checkDepth(options);
      Object children = options.remove("childPolicy");
      LocalityConfig locality = CoreOptions.LOCALITY.decode(options);
      // the default child weighs endpoints, as Envoy's default round robin does
      return ConfigOrError.fromConfig(new LocalityPolicyConfig(locality, children == null
          ? PolicyConfig.defaults(Algorithm.VNSWRR)
          : LabelSubsetPolicyConfig.child(children, LabelSubsetPolicyConfig.LOCALITY_CHILDREN)));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(NAME + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString())).withCause(e));
    }
  }
}

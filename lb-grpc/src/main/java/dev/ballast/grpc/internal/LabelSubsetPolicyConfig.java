package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.locality.LocalityConfig;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.core.subset.SubsetConfig;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The parsed config of {@code label_subset}: lb-core's {@link CoreOptions#SUBSET} options,
 * decoded by lb-core's codec, and gRPC's {@code childPolicy} list:
 *
 * <pre>{@code
 * {"selectors": [["zone"], ["zone", "version"]],     required, at least one
 *  "fallbackPolicy": "no_fallback",                   or any_endpoint, default_subset
 *  "defaultSubset": {"version": "v1"},                required for default_subset
 *  "headerPrefix": "x-lb-",                           request label k comes from header x-lb-k
 *  "allowRedundantKeys": false,                       Envoy's allow_redundant_keys
 *  "childPolicy": [{"p2c_peak_ewma": {}}]}            first supported; default round_robin
 * }</pre>
 *
 * <p>The child may be {@code locality} (subsets over zones): {@code [{"locality": {"localZone":
 * "a", ..., "childPolicy": [{"p2c_peak_ewma": {}}]}}]}.
 *
 * @param subset the subset options
 * @param child the child policy's config (the locality's child when {@code locality} is set)
 * @param locality the zones each subset balances over, or null
 */
public record LabelSubsetPolicyConfig(SubsetConfig subset, PolicyConfig child,
    LocalityConfig locality) {

  /** The policy name. */
  public static final String NAME = "label_subset";

  /**
   * The policies of lb-core's registry (a user's registered ones too) a subset or a locality
   * balances with: those that read no load reports (no report reaches a composite's child), and,
   * unless {@code keyed}, that pick without a key (a locality passes a call's key down, a subset
   * does not).
   */
  static List<String> children(boolean keyed) {
    return PolicyRegistry.defaultRegistry().policies().stream()
        .filter(p -> whyNotAChild(p, keyed) == null).map(BalancingPolicy::name).toList();
  }

  /** Why a policy cannot be a child ({@link #children}'s one rule), or null if it can be. */
  private static String whyNotAChild(BalancingPolicy<?> p, boolean keyed) {
    return p.traits().contains(Trait.READS_REPORTS)
        ? p.name() + " reads load reports, which no composite's child gets"
        : !keyed && p.traits().contains(Trait.PICKS_BY_KEY)
        ? p.name() + " picks by key, and a subset passes no key on" : null;
  }

  /** {@link #whyNotAChild} of a registered policy as a refusal's opening ("...; "), or "". */
  static String whyNotAChild(String name, boolean keyed) {
    return PolicyRegistry.defaultRegistry().find(name).map(p -> whyNotAChild(p, keyed))
        .map(why -> why + "; ").orElse("");
  }

  /**
   * Parses the JSON config, the child's balancer options over a provider's base settings; a bad
   * field comes back as an error naming it, never thrown.
   */
  public static ConfigOrError parse(Map<String, ?> json, BalancerConfig base) {
    try {
      Map<String, Object> options = new LinkedHashMap<>(json == null ? Map.of() : json);
      OptionSet.checkDepth(options); // childPolicy too: outside data, bounded before it is read
      Object children = options.remove("childPolicy");
      SubsetConfig subset = CoreOptions.SUBSET.decode(options);
      if (!subset.enabled()) {
        throw new IllegalArgumentException("selectors: none (expected: a list of label-key"
            + " lists, e.g. [[\"zone\"], [\"zone\", \"version\"]])");
      }
      for (List<String> keys : subset.selectors()) {
        for (String key : keys) {
          // gRPC lower-cases a header name as a whole string, which for some letters is not
          // each letter lower-cased ("\u0130" becomes "i" and a combining dot)
          String header = (subset.headerPrefix() + key).toLowerCase(Locale.ROOT);
          if (!header.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
              || c == '-' || c == '_' || c == '.')) {
            throw new IllegalArgumentException("selectors: key " + key + " cannot travel in"
                + " header " + subset.headerPrefix() + key + " (expected: letters, digits, '-', '_' or '.' once"
                + " lower-cased)");
          }
        }
      }
      LocalityPolicyConfig zones = locality(children, base);
      return ConfigOrError.fromConfig(zones != null
          ? new LabelSubsetPolicyConfig(subset, zones.child(), zones.locality())
          : new LabelSubsetPolicyConfig(subset, child(children, children(false), base,
              LocalityPolicyConfig.NAME), null));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(NAME + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString())).withCause(e));
    }
  }

  /** The child list's {@code locality} config if it comes first, else null. */
  private static LocalityPolicyConfig locality(Object list, BalancerConfig base) {
    if (!(list instanceof List<?> l) || l.isEmpty() || !(l.get(0) instanceof Map<?, ?> first)
        || first.size() != 1 || !first.containsKey(LocalityPolicyConfig.NAME)) {
      return null;
    }
    Object json = first.get(LocalityPolicyConfig.NAME);
    if (json != null && !(json instanceof Map)) {
      throw new IllegalArgumentException("childPolicy: locality: " + ValueType.show(json)
          + " (expected: an object)");
    }
    // a subset's zones are balanced by lb-core over the subset's nodes: its own algorithms only
    // (round_robin is lb-core's here), none that picks by key (a subset passes no key on)
    @SuppressWarnings("unchecked")
    Map<String, Object> options = new LinkedHashMap<>(json == null ? Map.of()
        : (Map<String, ?>) json);
    Object children = options.remove("childPolicy");
    try {
      LocalityConfig zones = CoreOptions.LOCALITY.decode(options);
      PolicyConfig child = children == null
          ? PolicyConfig.decode(ConfiguredPolicy.named("vnswrr"), null, base)
          : child(children, children(false), base);
      return new LocalityPolicyConfig(zones, child, null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("childPolicy: locality: " + e.getMessage(), e);
    }
  }

  /**
   * gRPC's convention: a list of {name: config}; the first of the supported names wins.
   *
   * @param composites the composite children the caller takes before this (label_subset's
   *     {@code locality}), named in the refusal beside {@code supported}
   */
  static PolicyConfig child(Object list, List<String> supported, BalancerConfig base,
      String... composites) {
    if (list == null) {
      return PolicyConfig.decode(ConfiguredPolicy.named("round_robin"), null, base);
    }
    if (!(list instanceof List)) {
      throw new IllegalArgumentException("childPolicy: " + ValueType.show(list)
          + " (expected: a list such as [{\"p2c_peak_ewma\": {}}])");
    }
    List<String> seen = new ArrayList<>();
    for (Object entry : (List<?>) list) {
      if (!(entry instanceof Map) || ((Map<?, ?>) entry).size() != 1) {
        throw new IllegalArgumentException("childPolicy: " + entry
            + " (expected: an object with one policy name, e.g. {\"p2c_peak_ewma\": {}})");
      }
      Map.Entry<?, ?> e = ((Map<?, ?>) entry).entrySet().iterator().next();
      String name = String.valueOf(e.getKey());
      seen.add(name);
      String known = PolicyRegistry.defaultRegistry().find(name).map(BalancingPolicy::name)
          .orElse(name);
      if (!supported.contains(known)) {
        continue;
      }
      if (e.getValue() != null && !(e.getValue() instanceof Map)) {
        throw new IllegalArgumentException("childPolicy: " + name + ": "
            + ValueType.show(e.getValue()) + " (expected: an object)");
      }
      @SuppressWarnings("unchecked")
      Map<String, ?> childJson = (Map<String, ?>) e.getValue();
      try {
        PolicyConfig child =
            PolicyConfig.decode(PolicyRegistry.defaultRegistry().get(known), childJson, base);
        SkippedChildren.say(seen.subList(0, seen.size() - 1), name, supported);
        return child;
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException("childPolicy: " + name + ": " + ex.getMessage(), ex);
      }
    }
    List<String> accepted = new ArrayList<>(List.of(composites)); // taken before this method
    accepted.addAll(supported);
    String near = seen.isEmpty() ? null : SkippedChildren.nearestIfUnknown(seen.get(0), accepted);
    throw new IllegalArgumentException("childPolicy: none of " + seen + " is supported ("
        + (seen.isEmpty() ? "" : whyNotAChild(seen.get(0), false))
        + (near == null ? "" : "did you mean " + near + "? ") + "expected: one of " + accepted
        + ")");
  }
}

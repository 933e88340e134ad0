package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The parsed config of {@code label_subset}:
 *
 * <pre>{@code
 * {"selectors": [["zone"], ["zone", "version"]],     required, at least one
 *  "fallbackPolicy": "NO_FALLBACK",                   or ANY_ENDPOINT, DEFAULT_SUBSET
 *  "defaultSubset": {"version": "v1"},                required for DEFAULT_SUBSET
 *  "headerPrefix": "x-lb-",                           request label k comes from header x-lb-k
 *  "allowRedundantKeys": false,                       Envoy's allow_redundant_keys
 *  "childPolicy": [{"p2c_peak_ewma": {}}]}            first supported; default round_robin
 * }</pre>
 */
public final class LabelSubsetPolicyConfig {

  /** The policy name. */
  public static final String NAME = "label_subset";
  static final String DEFAULT_HEADER_PREFIX = "x-lb-";
  private static final List<String> CHILDREN = List.of("vnswrr", "swrr", "weighted_random",
      "least_loaded", "p2c_peak_ewma", "round_robin");

  final List<List<String>> selectors;
  final FallbackPolicy fallbackPolicy;
  final Map<String, String> defaultSubset;
  final String headerPrefix;
  final boolean allowRedundantKeys;
  final AlgorithmPolicyConfig child;

  private LabelSubsetPolicyConfig(List<List<String>> selectors, FallbackPolicy fallbackPolicy,
      Map<String, String> defaultSubset, String headerPrefix, boolean allowRedundantKeys,
      AlgorithmPolicyConfig child) {
    this.selectors = selectors;
    this.fallbackPolicy = fallbackPolicy;
    this.defaultSubset = defaultSubset;
    this.headerPrefix = headerPrefix;
    this.allowRedundantKeys = allowRedundantKeys;
    this.child = child;
  }

  /** Parses the JSON config; a bad field comes back as an error naming it, never thrown. */
  public static ConfigOrError parse(Map<String, ?> json) {
    try {
      return ConfigOrError.fromConfig(parseOrThrow(json == null ? Map.of() : json));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(
          NAME + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()))
          .withCause(e));
    }
  }

  private static LabelSubsetPolicyConfig parseOrThrow(Map<String, ?> json) {
    JsonFields.checkDepth(json);
    JsonFields.checkKeys(json, Set.of("selectors", "fallbackPolicy", "defaultSubset",
        "headerPrefix", "allowRedundantKeys", "childPolicy"));

    String prefix = JsonFields.string("headerPrefix", json);
    if (prefix == null) {
      prefix = DEFAULT_HEADER_PREFIX;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (!headerChar(prefix.charAt(i))) {
        throw new IllegalArgumentException("headerPrefix: \"" + prefix
            + "\" (expected: lowercase letters, digits, '-', '_' or '.')");
      }
    }

    List<?> rawSelectors = JsonFields.list("selectors", json);
    if (rawSelectors == null || rawSelectors.isEmpty()) {
      throw new IllegalArgumentException("selectors: " + (rawSelectors == null ? "missing" : "[]")
          + " (expected: a list of label-key lists, e.g. [[\"zone\"], [\"zone\", \"version\"]])");
    }
    List<List<String>> selectors = new ArrayList<>();
    SubsetSelector.Builder<Object> check = SubsetSelector.builder();
    for (Object s : rawSelectors) {
      if (!(s instanceof List) || ((List<?>) s).isEmpty()) {
        throw new IllegalArgumentException("selectors: " + s
            + " (expected: a non-empty list of label keys)");
      }
      List<String> keys = new ArrayList<>();
      for (Object k : (List<?>) s) {
        if (!(k instanceof String)) {
          throw new IllegalArgumentException("selectors: key " + JsonFields.show(k) + " in "
              + JsonFields.show(s)
              + " (expected: a string)");
        }
        String key = (String) k;
        // gRPC lower-cases a header name as a whole string, which for some letters is not
        // each letter lower-cased ("\u0130" becomes "i" and a combining dot)
        String header = (prefix + key).toLowerCase(Locale.ROOT);
        for (int i = 0; i < header.length(); i++) {
          if (!headerChar(header.charAt(i))) {
            throw new IllegalArgumentException("selectors: key \"" + key + "\" cannot travel in"
                + " header " + prefix + key + " (expected: letters, digits, '-', '_' or '.'"
                + " once lower-cased)");
          }
        }
        keys.add(key);
      }
      try {
        check.selector(keys);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("selectors: " + e.getMessage(), e);
      }
      selectors.add(List.copyOf(keys));
    }

    String fallbackText = JsonFields.string("fallbackPolicy", json);
    FallbackPolicy fallback = FallbackPolicy.NO_FALLBACK;
    if (fallbackText != null) {
      try {
        fallback = FallbackPolicy.valueOf(fallbackText);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("fallbackPolicy: \"" + fallbackText
            + "\" (expected: one of NO_FALLBACK, ANY_ENDPOINT, DEFAULT_SUBSET)", e);
      }
    }

    Map<String, ?> rawDefault = JsonFields.object("defaultSubset", json);
    Map<String, String> defaultSubset = null;
    if (rawDefault != null) {
      defaultSubset = new LinkedHashMap<>();
      for (Map.Entry<String, ?> e : rawDefault.entrySet()) {
        if (!(e.getValue() instanceof String) || ((String) e.getValue()).isEmpty()
            || e.getKey().isEmpty()) {
          throw new IllegalArgumentException("defaultSubset: " + e.getKey() + "="
              + JsonFields.show(e.getValue())
              + " (expected: non-empty string keys and values)");
        }
        defaultSubset.put(e.getKey(), (String) e.getValue());
      }
      defaultSubset = Collections.unmodifiableMap(defaultSubset);
    }
    if (fallback == FallbackPolicy.DEFAULT_SUBSET && defaultSubset == null) {
      throw new IllegalArgumentException(
          "defaultSubset: missing (expected: labels when fallbackPolicy is DEFAULT_SUBSET)");
    }

    Object redundant = json.get("allowRedundantKeys");
    if (redundant != null && !(redundant instanceof Boolean)) {
      throw new IllegalArgumentException(
          "allowRedundantKeys: " + JsonFields.show(redundant) + " (expected: true or false)");
    }

    return new LabelSubsetPolicyConfig(List.copyOf(selectors), fallback, defaultSubset, prefix,
        Boolean.TRUE.equals(redundant), child(JsonFields.list("childPolicy", json)));
  }

  /** gRPC's convention: a list of {name: config}; the first supported entry wins. */
  private static AlgorithmPolicyConfig child(List<?> list) {
    if (list == null) {
      return AlgorithmPolicyConfig.defaults(Algorithm.ROUND_ROBIN);
    }
    List<String> seen = new ArrayList<>();
    for (Object entry : list) {
      if (!(entry instanceof Map) || ((Map<?, ?>) entry).size() != 1) {
        throw new IllegalArgumentException("childPolicy: " + entry
            + " (expected: an object with one policy name, e.g. {\"p2c_peak_ewma\": {}})");
      }
      Map.Entry<?, ?> e = ((Map<?, ?>) entry).entrySet().iterator().next();
      String name = String.valueOf(e.getKey());
      seen.add(name);
      if (!CHILDREN.contains(name)) {
        continue;
      }
      if (e.getValue() != null && !(e.getValue() instanceof Map)) {
        throw new IllegalArgumentException("childPolicy: " + name + ": "
            + JsonFields.show(e.getValue())
            + " (expected: an object)");
      }
      @SuppressWarnings("unchecked")
      Map<String, ?> childJson = (Map<String, ?>) e.getValue();
      try {
        return AlgorithmPolicyConfig.parseOrThrow(Algorithm.fromName(name), childJson);
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException("childPolicy: " + name + ": " + ex.getMessage(), ex);
      }
    }
    throw new IllegalArgumentException("childPolicy: none of " + seen
        + " is supported (expected: one of " + CHILDREN + ")");
  }

  private static boolean headerChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  }

  /** Returns the selectors, each a list of label keys. */
  public List<List<String>> selectors() {
    return selectors;
  }

  /** Returns the fallback policy; default NO_FALLBACK. */
  public FallbackPolicy fallbackPolicy() {
    return fallbackPolicy;
  }

  /** Returns the default subset's labels, or null if none were given. */
  public Map<String, String> defaultSubset() {
    return defaultSubset;
  }

  /** Returns the header prefix; default {@code x-lb-}. */
  public String headerPrefix() {
    return headerPrefix;
  }

  /** Returns whether request labels may carry keys outside the selectors; default false. */
  public boolean allowRedundantKeys() {
    return allowRedundantKeys;
  }

  /** Returns the child policy's config; default lb-core's round_robin. */
  public AlgorithmPolicyConfig child() {
    return child;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof LabelSubsetPolicyConfig)) {
      return false;
    }
    LabelSubsetPolicyConfig c = (LabelSubsetPolicyConfig) o;
    return selectors.equals(c.selectors) && fallbackPolicy == c.fallbackPolicy
        && Objects.equals(defaultSubset, c.defaultSubset) && headerPrefix.equals(c.headerPrefix)
        && allowRedundantKeys == c.allowRedundantKeys && child.equals(c.child);
  }

  @Override
  public int hashCode() {
    return Objects.hash(selectors, fallbackPolicy, defaultSubset, headerPrefix,
        allowRedundantKeys, child);
  }

  @Override
  public String toString() {
    return NAME + "{selectors=" + selectors + ", fallbackPolicy=" + fallbackPolicy
        + ", defaultSubset=" + defaultSubset + ", headerPrefix=" + headerPrefix
        + ", allowRedundantKeys=" + allowRedundantKeys + ", child=" + child + "}";
  }
}

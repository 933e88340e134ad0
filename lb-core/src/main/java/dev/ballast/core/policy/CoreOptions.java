package dev.ballast.core.policy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.locality.LocalityConfig;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * lb-core's options by name: {@link #BALANCER} (every algorithm's {@link BalancerConfig}) and
 * {@link #HASH} (the key-picking algorithms' {@link HashConfig}); each setter's Javadoc gives
 * its default and range. The same names are the gRPC policies' config fields and the Spring
 * properties of a client ({@code ballast.clients.<name>.decay-time}).
 */
public final class CoreOptions {

  private CoreOptions() {}

  /** Algorithms by name: {@code p2c_peak_ewma} and {@code p2c-peak-ewma} alike. */
  public static final ValueType<Algorithm> ALGORITHM =
      ValueType.named(List.of(Algorithm.values()), Algorithm::id);

  /**
   * Balancing policies by name, resolved in {@link
   * dev.ballast.core.policy.PolicyRegistry#defaultRegistry()} (lb-core's algorithms and every
   * registered policy): the canonical name, e.g. {@code p2c_peak_ewma} for {@code
   * P2C-Peak-EWMA}.
   */
  public static final ValueType<String> POLICY = ValueType.of(
      "a balancing policy's name such as p2c_peak_ewma", raw -> {
        if (!(raw instanceof String s) || s.length() > 200) {
          throw new IllegalArgumentException(ValueType.show(raw)
              + " (expected: a balancing policy's name such as p2c_peak_ewma)");
        }
        return dev.ballast.core.policy.PolicyRegistry.defaultRegistry().get(s.trim()).name();
      }, s -> s);

  /**
   * A balancing policy's own options, decoded by the policy once it is known: an object such as
   * {@code {percent: 5, label: tier}} (Spring: {@code policy.percent=5}).
   */
  public static final ValueType<Map<String, Object>> POLICY_OPTIONS = ValueType.of(
      "an object of the balancing policy's own options such as {percent: 5}", raw -> {
        if (!(raw instanceof Map<?, ?> m)) {
          throw new IllegalArgumentException(ValueType.show(raw) + " (expected: an object of"
              + " the balancing policy's own options such as {percent: 5})");
        }
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return java.util.Collections.unmodifiableMap(out);
      }, m -> m);

  /**
   * Endpoint lists: each entry in lb-core's textual form ({@code host:port;weight=3;zone=a}), a
   * list or comma-separated text; an address given twice is refused.
   */
  public static final ValueType<List<Endpoint>> ENDPOINTS = ValueType.of(
      "host:port[;weight=N][;key=value...] entries such as 10.0.0.1:7000;weight=3;zone=a",
      CoreOptions::endpoints, list -> list.stream().map(Endpoint::toString).toList());

  private static List<Endpoint> endpoints(Object raw) {
    String expected = "host:port[;weight=N][;key=value...] entries such as"
        + " 10.0.0.1:7000;weight=3;zone=a";
    List<String> texts = ValueType.STRINGS.parse(raw instanceof List<?> l
        ? l.stream().map(e -> e instanceof Endpoint ? e.toString() : e).toList() : raw);
    List<Endpoint> out = new java.util.ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String t : texts) {
      Endpoint e;
      try {
        e = Endpoint.parse(t.trim());
      } catch (IllegalArgumentException ex) {
        String why = String.valueOf(ex.getMessage())
            .replaceFirst(" \\(expected: ([^)]*)\\)", ", expected $1")
            .replaceFirst(" in \".*\"$", "");
        throw new IllegalArgumentException(t + " (expected: " + expected + "; " + why + ")", ex);
      }
      if (!seen.add(e.address())) {
        throw new IllegalArgumentException(t + " (expected: each address once; "
            + e.address() + " is given twice)");
      }
      out.add(e);
    }
    return List.copyOf(out);
  }

  /** Key hashes by twemproxy's name: {@code fnv1a_64}, {@code md5}, ... */
  public static final ValueType<KeyHash> KEY_HASH =
      ValueType.named(List.of(KeyHash.values()), KeyHash::id);

  /**
   * The options of {@link BalancerConfig}: {@code maxEffort}, {@code panicPick}, {@code
   * decayTime}, {@code defaultRtt}, {@code failurePenalty}, {@code maxFails}, {@code
   * slowStart.window}, {@code slowStart.aggression}, {@code slowStart.minWeightPercent}, {@code
   * aperture.clientIndex}, {@code aperture.clientCount}.
   */
  public static final OptionSet<BalancerConfig, BalancerConfig.Builder> BALANCER = OptionSet.of(
      "balancer", BalancerConfig::builder, BalancerConfig.Builder::build, List.of(
          Option.of("maxEffort", ValueType.INT, BalancerConfig::maxEffort,
              BalancerConfig.Builder::maxEffort, "3", "0"),
          Option.of("panicPick", ValueType.BOOLEAN, BalancerConfig::panicPick,
              BalancerConfig.Builder::panicPick, "true", "maybe"),
          Option.of("decayTime", ValueType.DURATION, BalancerConfig::decayTime,
              BalancerConfig.Builder::decayTime, "5s", "0s"),
          Option.of("defaultRtt", ValueType.DURATION, BalancerConfig::defaultRtt,
              BalancerConfig.Builder::defaultRtt, "12ms", "-5ms"),
          Option.of("failurePenalty", ValueType.DOUBLE, BalancerConfig::failurePenalty,
              BalancerConfig.Builder::failurePenalty, "3.5", "0.5"),
          Option.of("maxFails", ValueType.INT, BalancerConfig::maxFails,
              BalancerConfig.Builder::maxFails, "3", "0"),
          Option.of("slowStart.window", ValueType.DURATION, BalancerConfig::slowStartWindow,
              BalancerConfig.Builder::slowStartWindow, "60s", "-1s"),
          Option.of("slowStart.aggression", ValueType.DOUBLE,
              BalancerConfig::slowStartAggression, BalancerConfig.Builder::slowStartAggression,
              "2.0", "0"),
          Option.of("slowStart.minWeightPercent", ValueType.DOUBLE,
              BalancerConfig::slowStartMinWeightPercent,
              BalancerConfig.Builder::slowStartMinWeightPercent, "0.1", "101"),
          Option.of("aperture.clientIndex", ValueType.INT, BalancerConfig::apertureIndex,
              BalancerConfig.Builder::apertureIndex, "0", "-1"),
          Option.of("aperture.clientCount", ValueType.INT, BalancerConfig::apertureCount,
              BalancerConfig.Builder::apertureCount, "4", "0")));

  /**
   * The options of {@link HashConfig}: {@code requestHashHeader}, {@code loadBound}, {@code
   * minRingSize}, {@code maxRingSize}, {@code tableSize}, {@code keyHash}, {@code nameLabel}.
   */
  public static final OptionSet<HashConfig, HashConfig.Builder> HASH = OptionSet.of(
      "hash", HashConfig::builder, HashConfig.Builder::build, List.of(
          Option.of("requestHashHeader", ValueType.STRING, HashConfig::requestHashHeader,
              HashConfig.Builder::requestHashHeader, "x-user-id", "x-key-bin"),
          Option.of("loadBound", ValueType.DOUBLE, HashConfig::loadBound,
              HashConfig.Builder::loadBound, "1.25", "0.5"),
          Option.of("minRingSize", ValueType.INT, HashConfig::minRingSize,
              HashConfig.Builder::minRingSize, "64", "0"),
          Option.of("maxRingSize", ValueType.INT, HashConfig::maxRingSize,
              HashConfig.Builder::maxRingSize, "8192", "9000000"),
          Option.of("tableSize", ValueType.INT, HashConfig::tableSize,
              HashConfig.Builder::tableSize, "101", "100"),
          Option.of("keyHash", KEY_HASH, HashConfig::keyHash, HashConfig.Builder::keyHash,
              "md5", "md6"),
          Option.of("nameLabel", ValueType.STRING, HashConfig::nameLabel,
              HashConfig.Builder::nameLabel, "name", "server name")));

  /** Fallback policies by Envoy's name: {@code no_fallback}, {@code any_endpoint}, ... */
  public static final ValueType<FallbackPolicy> FALLBACK_POLICY = ValueType.named(
      List.of(FallbackPolicy.values()), f -> f.name().toLowerCase(Locale.ROOT));

  /**
   * The options of {@link SubsetConfig}: {@code selectors}, {@code fallbackPolicy}, {@code
   * defaultSubset}, {@code allowRedundantKeys}, {@code headerPrefix}.
   */
  public static final OptionSet<SubsetConfig, SubsetConfig.Builder> SUBSET = OptionSet.of(
      "subset", SubsetConfig::builder, SubsetConfig.Builder::build, List.of(
          Option.of("selectors", ValueType.KEY_SETS, SubsetConfig::selectors,
              SubsetConfig.Builder::selectors, List.of("zone", "version,zone"),
              List.of("zone,zone")),
          Option.of("fallbackPolicy", FALLBACK_POLICY, SubsetConfig::fallbackPolicy,
              SubsetConfig.Builder::fallbackPolicy, "any-endpoint", "any-endpiont"),
          Option.of("defaultSubset", ValueType.STRING_MAP, SubsetConfig::defaultSubset,
              SubsetConfig.Builder::defaultSubset, Map.of("version", "v1"),
              Map.of("version", "")),
          Option.of("allowRedundantKeys", ValueType.BOOLEAN, SubsetConfig::allowRedundantKeys,
              SubsetConfig.Builder::allowRedundantKeys, "true", "yes"),
          Option.of("headerPrefix", ValueType.STRING, SubsetConfig::headerPrefix,
              SubsetConfig.Builder::headerPrefix, "x-route-", "X-Route-")));

  /**
   * Shares by zone: an object of numbers such as {@code {a: 3, b: 2, c: 1}} (numbers or numeric
   * text, as properties give them).
   */
  public static final ValueType<Map<String, Double>> ZONE_SHARES = ValueType.of(
      "an object of numbers such as {a: 3, b: 2, c: 1}", CoreOptions::shares, TreeMap::new);

  private static Map<String, Double> shares(Object raw) {
    if (!(raw instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException(raw + " (expected: an object of numbers such as"
          + " {a: 3, b: 2, c: 1})");
    }
    Map<String, Double> out = new TreeMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      try {
        if (e.getValue() == null) {
          throw new IllegalArgumentException("null");
        }
        out.put(String.valueOf(e.getKey()), ValueType.DOUBLE.parse(e.getValue()));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(e.getKey() + ": " + e.getValue()
            + " (expected: a number)", bad);
      }
    }
    return out;
  }

  /**
   * The options of {@link LocalityConfig} (priorities, localities and zone-aware routing):
   * {@code overprovisioningFactor}, {@code panicThreshold}, {@code localZone}, {@code
   * callerZones}, {@code minClusterSize}.
   */
  public static final OptionSet<LocalityConfig, LocalityConfig.Builder> LOCALITY = OptionSet.of(
      "locality", LocalityConfig::builder, LocalityConfig.Builder::build, List.of(
          Option.of("overprovisioningFactor", ValueType.DOUBLE,
              LocalityConfig::overprovisioningFactor,
              LocalityConfig.Builder::overprovisioningFactor, "1.2", "0.9"),
          Option.of("panicThreshold", ValueType.DOUBLE, LocalityConfig::panicThreshold,
              LocalityConfig.Builder::panicThreshold, "30", "101"),
          Option.of("localZone", ValueType.STRING, LocalityConfig::localZone,
              LocalityConfig.Builder::localZone, "us-east-1a", "us east"),
          Option.of("callerZones", ZONE_SHARES, LocalityConfig::callerZones,
              LocalityConfig.Builder::callerZones, Map.of("a", 3.0, "b", 2.0, "c", 1.0),
              Map.of("a", -1.0)),
          Option.of("minClusterSize", ValueType.INT, LocalityConfig::minClusterSize,
              LocalityConfig.Builder::minClusterSize, "3", "-1")));
}

package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The parsed config of a policy that picks by key. Fields (all optional): every one: {@code
 * requestHashHeader} (the header whose value is the key, as gRFC A76; absent: only the call
 * option gives a key), {@code loadBound} (bounded-load factor c, 0 = off, else &gt;= 1; default
 * 0); {@code ballast_ring_hash}: {@code minRingSize} (1024), {@code maxRingSize} (4096); {@code
 * maglev}: {@code tableSize} (65537, a prime), {@code nameLabel}; {@code ketama}: {@code hash}
 * (twemproxy's name, default {@code fnv1a_64}), {@code nameLabel}.
 */
public final class HashPolicyConfig {

  private final Algorithm algorithm;
  private final String policyName;
  private final HashConfig hashConfig;
  private final String requestHashHeader;

  private HashPolicyConfig(Algorithm algorithm, String policyName, HashConfig hashConfig,
      String requestHashHeader) {
    this.algorithm = algorithm;
    this.policyName = policyName;
    this.hashConfig = hashConfig;
    this.requestHashHeader = requestHashHeader;
  }

  /** Returns the config with every field at its default. */
  public static HashPolicyConfig defaults(Algorithm algorithm, String policyName) {
    return new HashPolicyConfig(algorithm, policyName, HashConfig.defaults(), null);
  }

  /** Parses a policy's JSON config; a bad field comes back as an error naming it, never thrown. */
  public static ConfigOrError parse(Algorithm algorithm, String policyName, Map<String, ?> json) {
    try {
      return ConfigOrError.fromConfig(parseOrThrow(algorithm, policyName, json));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(
          policyName + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()))
          .withCause(e));
    }
  }

  static HashPolicyConfig parseOrThrow(Algorithm algorithm, String policyName,
      Map<String, ?> json) {
    if (json == null) {
      return defaults(algorithm, policyName);
    }
    JsonFields.checkDepth(json);
    HashConfig.Builder b = HashConfig.builder();
    switch (algorithm) {
      case RING_HASH:
        JsonFields.checkKeys(json,
            Set.of("requestHashHeader", "loadBound", "minRingSize", "maxRingSize"));
        Integer min = JsonFields.positiveInt("minRingSize", json);
        Integer max = JsonFields.positiveInt("maxRingSize", json);
        if (min != null) {
          b.minRingSize(min);
        }
        if (max != null) {
          b.maxRingSize(max);
        }
        break;
      case MAGLEV:
        JsonFields.checkKeys(json,
            Set.of("requestHashHeader", "loadBound", "tableSize", "nameLabel"));
        Integer size = JsonFields.positiveInt("tableSize", json);
        if (size != null) {
          b.tableSize(size);
        }
        b.nameLabel(JsonFields.string("nameLabel", json));
        break;
      default:
        JsonFields.checkKeys(json,
            Set.of("requestHashHeader", "loadBound", "hash", "nameLabel"));
        String hash = JsonFields.string("hash", json);
        if (hash != null) {
          b.keyHash(KeyHash.fromName(hash));
        }
        b.nameLabel(JsonFields.string("nameLabel", json));
        break;
    }
    Object bound = json.get("loadBound");
    if (bound != null) {
      if (!(bound instanceof Number)) {
        throw new IllegalArgumentException(
            "loadBound: " + JsonFields.show(bound)
                + " (expected: a number, 0 for off or at least 1, e.g. 1.25)");
      }
      b.loadBound(((Number) bound).doubleValue());
    }
    return new HashPolicyConfig(algorithm, policyName, b.build(),
        header(JsonFields.string("requestHashHeader", json)));
  }

  /** gRFC A76: a header name, lower-cased, neither binary ({@code -bin}) nor a pseudo-header. */
  private static String header(String name) {
    if (name == null) {
      return null;
    }
    String lower = name.trim().toLowerCase(Locale.ROOT);
    if (lower.isEmpty() || lower.startsWith(":") || lower.endsWith("-bin")) {
      throw new IllegalArgumentException("requestHashHeader: \"" + name
          + "\" (expected: a header name, not a pseudo-header nor a -bin one)");
    }
    for (int i = 0; i < lower.length(); i++) {
      char c = lower.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')) {
        throw new IllegalArgumentException("requestHashHeader: \"" + name
            + "\" (unexpected character '" + c + "')");
      }
    }
    return lower;
  }

  /** Returns the algorithm. */
  public Algorithm algorithm() {
    return algorithm;
  }

  /** Returns lb-core's settings for the balancer (ring sizes, table size, bound, key hash). */
  public HashConfig hashConfig() {
    return hashConfig;
  }

  /** Returns the header whose value is a call's key, or null if only the call option gives one. */
  public String requestHashHeader() {
    return requestHashHeader;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof HashPolicyConfig)) {
      return false;
    }
    HashPolicyConfig c = (HashPolicyConfig) o;
    return algorithm == c.algorithm && policyName.equals(c.policyName)
        && hashConfig.equals(c.hashConfig)
        && Objects.equals(requestHashHeader, c.requestHashHeader);
  }

  @Override
  public int hashCode() {
    return Objects.hash(algorithm, policyName, hashConfig, requestHashHeader);
  }

  @Override
  public String toString() {
    return policyName + "{" + hashConfig + ", requestHashHeader=" + requestHashHeader + "}";
  }
}

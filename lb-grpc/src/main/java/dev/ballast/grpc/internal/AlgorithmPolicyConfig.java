package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The parsed config of one algorithm policy. Fields (all optional; absent means lb-core's
 * default): {@code p2c_peak_ewma}: {@code decayTime} (10s, &gt; 0), {@code defaultRtt} (30ms,
 * &gt;= 0); {@code swrr}: {@code maxFails} (1, &gt; 0); others: none.
 */
public final class AlgorithmPolicyConfig {

  private final Algorithm algorithm;
  private final Duration decayTime;
  private final Duration defaultRtt;
  private final Integer maxFails;

  AlgorithmPolicyConfig(Algorithm algorithm, Duration decayTime, Duration defaultRtt,
      Integer maxFails) {
    this.algorithm = algorithm;
    this.decayTime = decayTime;
    this.defaultRtt = defaultRtt;
    this.maxFails = maxFails;
  }

  /** Returns the config with every field at its default. */
  public static AlgorithmPolicyConfig defaults(Algorithm algorithm) {
    return new AlgorithmPolicyConfig(algorithm, null, null, null);
  }

  /** Parses a policy's JSON config; a bad field comes back as an error naming it, never thrown. */
  public static ConfigOrError parse(Algorithm algorithm, Map<String, ?> json) {
    try {
      return ConfigOrError.fromConfig(parseOrThrow(algorithm, json));
    } catch (IllegalArgumentException e) {
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(
          algorithm.id() + " config: " + e.getMessage()).withCause(e));
    }
  }

  static AlgorithmPolicyConfig parseOrThrow(Algorithm algorithm, Map<String, ?> json) {
    if (json == null) {
      return defaults(algorithm);
    }
    switch (algorithm) {
      case P2C_PEAK_EWMA: {
        JsonFields.checkKeys(json, Set.of("decayTime", "defaultRtt"));
        Duration decay = JsonFields.duration("decayTime", json);
        if (decay != null && decay.isZero()) {
          throw new IllegalArgumentException(
              "decayTime: \"" + json.get("decayTime") + "\" (expected: > 0)");
        }
        return new AlgorithmPolicyConfig(algorithm, decay,
            JsonFields.duration("defaultRtt", json), null);
      }
      case SWRR:
        JsonFields.checkKeys(json, Set.of("maxFails"));
        return new AlgorithmPolicyConfig(algorithm, null, null,
            JsonFields.positiveInt("maxFails", json));
      default:
        JsonFields.checkKeys(json, Set.of());
        return defaults(algorithm);
    }
  }

  /** Returns the algorithm. */
  public Algorithm algorithm() {
    return algorithm;
  }

  /**
   * Returns {@code base} with this config's fields applied and panic picks off: a gRPC picker
   * must never hand out a subchannel that is not READY.
   */
  public BalancerConfig toBalancerConfig(BalancerConfig base) {
    BalancerConfig.Builder b = base.toBuilder().panicPick(false);
    if (decayTime != null) {
      b.decayTime(decayTime);
    }
    if (defaultRtt != null) {
      b.defaultRtt(defaultRtt);
    }
    if (maxFails != null) {
      b.maxFails(maxFails);
    }
    return b.build();
  }

  /** Returns the decay time, or null for the default. */
  public Duration decayTime() {
    return decayTime;
  }

  /** Returns the default RTT, or null for the default. */
  public Duration defaultRtt() {
    return defaultRtt;
  }

  /** Returns nginx's max_fails, or null for the default. */
  public Integer maxFails() {
    return maxFails;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof AlgorithmPolicyConfig)) {
      return false;
    }
    AlgorithmPolicyConfig c = (AlgorithmPolicyConfig) o;
    return algorithm == c.algorithm && Objects.equals(decayTime, c.decayTime)
        && Objects.equals(defaultRtt, c.defaultRtt) && Objects.equals(maxFails, c.maxFails);
  }

  @Override
  public int hashCode() {
    return Objects.hash(algorithm, decayTime, defaultRtt, maxFails);
  }

  @Override
  public String toString() {
    return algorithm.id() + "{decayTime=" + decayTime + ", defaultRtt=" + defaultRtt
        + ", maxFails=" + maxFails + "}";
  }
}

package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The parsed config of one algorithm policy. Fields (all optional; absent means lb-core's
 * default): every policy: {@code slowStart} {@code {"window": "60s", "aggression": 1.0,
 * "minWeightPercent": 10}} (window required in the object, &gt; 0; aggression &gt; 0; floor
 * &gt; 0 and &lt;= 100, fractions allowed, such as 0.1); {@code p2c_peak_ewma}: {@code
 * decayTime} (10s, &gt; 0), {@code defaultRtt} (30ms, &gt;= 0), {@code failurePenalty} (2.0,
 * &gt;= 1); {@code swrr}: {@code maxFails} (1, &gt; 0); {@code aperture}: {@code clientIndex}
 * and {@code clientCount} (0 of 1; both or neither).
 */
public final class AlgorithmPolicyConfig {

  private final Algorithm algorithm;
  private final Duration decayTime;
  private final Duration defaultRtt;
  private final Integer maxFails;
  private final Double failurePenalty;
  private final Duration slowStartWindow;
  private final double slowStartAggression;
  private final double slowStartMinWeightPercent;
  private final Integer clientIndex;
  private final Integer clientCount;

  private AlgorithmPolicyConfig(Algorithm algorithm, Map<String, ?> json) {
    this.algorithm = algorithm;
    this.decayTime = JsonFields.duration("decayTime", json);
    if (decayTime != null && decayTime.isZero()) {
      throw new IllegalArgumentException(
          "decayTime: \"" + json.get("decayTime") + "\" (expected: > 0)");
    }
    this.defaultRtt = JsonFields.duration("defaultRtt", json);
    this.maxFails = JsonFields.positiveInt("maxFails", json);
    this.failurePenalty = JsonFields.number("failurePenalty", json, 1, false);
    Map<String, ?> slowStart = JsonFields.object("slowStart", json);
    if (slowStart != null) {
      try {
        JsonFields.checkKeys(slowStart, Set.of("window", "aggression", "minWeightPercent"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("slowStart: " + e.getMessage(), e);
      }
      this.slowStartWindow = JsonFields.duration("window", slowStart);
      if (slowStartWindow == null || slowStartWindow.isZero()) {
        throw new IllegalArgumentException("slowStart.window: " + slowStart.get("window")
            + " (expected: a duration > 0, such as \"60s\")");
      }
      Double aggression;
      Double floor;
      try {
        aggression = JsonFields.number("aggression", slowStart, 0, true);
        floor = JsonFields.number("minWeightPercent", slowStart, 0, true, 100);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("slowStart." + e.getMessage(), e);
      }
      this.slowStartAggression = aggression == null ? 1.0 : aggression;
      this.slowStartMinWeightPercent = floor == null ? 10 : floor;
    } else {
      this.slowStartWindow = null;
      this.slowStartAggression = 1.0;
      this.slowStartMinWeightPercent = 10;
    }
    this.clientCount = JsonFields.positiveInt("clientCount", json);
    this.clientIndex = JsonFields.intIn("clientIndex", json, 0,
        clientCount == null ? Integer.MAX_VALUE : clientCount - 1);
    if ((clientIndex == null) != (clientCount == null)) {
      throw new IllegalArgumentException("clientIndex and clientCount: "
          + JsonFields.show(json.get("clientIndex")) + " of "
          + JsonFields.show(json.get("clientCount"))
          + " (expected: both, or neither)");
    }
  }

  /** Returns the config with every field at its default. */
  public static AlgorithmPolicyConfig defaults(Algorithm algorithm) {
    return new AlgorithmPolicyConfig(algorithm, Map.of());
  }

  /** Parses a policy's JSON config; a bad field comes back as an error naming it, never thrown. */
  public static ConfigOrError parse(Algorithm algorithm, Map<String, ?> json) {
    try {
      return ConfigOrError.fromConfig(parseOrThrow(algorithm, json));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(
          algorithm.id() + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString()))
          .withCause(e));
    }
  }

  static AlgorithmPolicyConfig parseOrThrow(Algorithm algorithm, Map<String, ?> json) {
    if (json == null) {
      return defaults(algorithm);
    }
    JsonFields.checkDepth(json);
    Set<String> allowed = new HashSet<>(Set.of("slowStart"));
    switch (algorithm) {
      case P2C_PEAK_EWMA:
        allowed.addAll(Set.of("decayTime", "defaultRtt", "failurePenalty"));
        break;
      case SWRR:
        allowed.add("maxFails");
        break;
      case APERTURE:
        allowed.addAll(Set.of("clientIndex", "clientCount"));
        break;
      default:
        break;
    }
    JsonFields.checkKeys(json, allowed);
    return new AlgorithmPolicyConfig(algorithm, json);
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
    if (failurePenalty != null) {
      b.failurePenalty(failurePenalty);
    }
    if (slowStartWindow != null) {
      b.slowStart(slowStartWindow, slowStartAggression, slowStartMinWeightPercent);
    }
    if (clientIndex != null) {
      b.apertureCoordinate(clientIndex, clientCount);
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

  private Object[] fields() {
    return new Object[] {algorithm, decayTime, defaultRtt, maxFails, failurePenalty,
        slowStartWindow, slowStartAggression, slowStartMinWeightPercent, clientIndex, clientCount};
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AlgorithmPolicyConfig
        && java.util.Arrays.equals(fields(), ((AlgorithmPolicyConfig) o).fields());
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(fields());
  }

  @Override
  public String toString() {
    return algorithm.id() + "{decayTime=" + decayTime + ", defaultRtt=" + defaultRtt
        + ", maxFails=" + maxFails + ", failurePenalty=" + failurePenalty + ", slowStart="
        + (slowStartWindow == null ? "off" : slowStartWindow + "/" + slowStartAggression + "/"
            + slowStartMinWeightPercent + "%") + ", client=" + clientIndex + "/" + clientCount
        + "}";
  }
}

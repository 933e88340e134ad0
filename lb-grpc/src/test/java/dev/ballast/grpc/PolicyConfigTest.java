package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.grpc.internal.AlgorithmPolicyConfig;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Service-config parsing of the algorithm policies: defaults, every field, every bad value. */
class PolicyConfigTest {

  private static LoadBalancerProvider provider(String name) {
    LoadBalancerProvider p = LoadBalancerRegistry.getDefaultRegistry().getProvider(name);
    assertThat(p).as("provider %s registered", name).isNotNull();
    return p;
  }

  private static BalancerConfig parsed(String policy, Map<String, ?> json) {
    ConfigOrError c = provider(policy).parseLoadBalancingPolicyConfig(json);
    assertThat(c.getError()).as("error for %s", json).isNull();
    return ((AlgorithmPolicyConfig) c.getConfig()).toBalancerConfig(BalancerConfig.defaults());
  }

  private static String error(String policy, Map<String, ?> json) {
    ConfigOrError c = provider(policy).parseLoadBalancingPolicyConfig(json);
    assertThat(c.getConfig()).as("config for %s", json).isNull();
    return c.getError().getDescription();
  }

  @Test
  void everyPolicyIsRegisteredUnderItsName() {
    assertThat(provider("vnswrr")).isInstanceOf(VnswrrLoadBalancerProvider.class);
    assertThat(provider("swrr")).isInstanceOf(SwrrLoadBalancerProvider.class);
    assertThat(provider("weighted_random")).isInstanceOf(WeightedRandomLoadBalancerProvider.class);
    assertThat(provider("least_loaded")).isInstanceOf(LeastLoadedLoadBalancerProvider.class);
    assertThat(provider("p2c_peak_ewma")).isInstanceOf(P2cPeakEwmaLoadBalancerProvider.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"vnswrr", "swrr", "weighted_random", "least_loaded", "p2c_peak_ewma"})
  void emptyConfigMeansLbCoreDefaultsWithoutPanicPicks(String policy) {
    BalancerConfig c = parsed(policy, Map.of());

    assertThat(c.decayTime()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.defaultRtt()).isEqualTo(Duration.ofMillis(30));
    assertThat(c.maxFails()).isEqualTo(1);
    assertThat(c.panicPick()).isFalse();
  }

  @Test
  void panicPicksStayOffWhateverTheBase() {
    BalancerConfig panicky = BalancerConfig.builder().panicPick(true).build();
    AlgorithmPolicyConfig c = (AlgorithmPolicyConfig) provider("vnswrr")
        .parseLoadBalancingPolicyConfig(Map.of()).getConfig();

    assertThat(c.toBalancerConfig(panicky).panicPick()).isFalse();
  }

  @Test
  void peakEwmaTakesEveryField() {
    BalancerConfig c = parsed("p2c_peak_ewma", Map.of("decayTime", "5s", "defaultRtt", "12ms"));

    assertThat(c.decayTime()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.defaultRtt()).isEqualTo(Duration.ofMillis(12));
  }

  @ParameterizedTest
  @CsvSource({"250ns, 250", "3us, 3000", "30ms, 30000000", "0.5s, 500000000",
      "10s, 10000000000", "1.5m, 90000000000", "1h, 3600000000000", " 2S , 2000000000"})
  void durationsTakeEveryUnit(String text, long nanos) {
    assertThat(parsed("p2c_peak_ewma", Map.of("decayTime", text)).decayTime())
        .isEqualTo(Duration.ofNanos(nanos));
  }

  @Test
  void zeroDefaultRttIsAllowed() {
    assertThat(parsed("p2c_peak_ewma", Map.of("defaultRtt", "0ms")).defaultRtt())
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void swrrTakesMaxFails() {
    assertThat(parsed("swrr", Map.of("maxFails", 3.0)).maxFails()).isEqualTo(3);
  }

  @Test
  void badDurationsAreNamed() {
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", 10.0)))
        .isEqualTo("p2c_peak_ewma config: decayTime: 10 (expected: a duration string such as"
            + " \"10s\" or \"30ms\")");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "10")))
        .contains("decayTime: \"10\" (expected: a duration string");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "10 parsecs")))
        .contains("decayTime: \"10 parsecs\"");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "ten s")))
        .contains("decayTime: \"ten s\"");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "s")))
        .contains("decayTime: \"s\"");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "0s")))
        .contains("decayTime: \"0s\" (expected: > 0)");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "-1s")))
        .contains("decayTime: \"-1s\" (expected: >= 0)");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "9999999h")))
        .contains("decayTime: \"9999999h\" (expected: at most 292 years)");
    // Long.MAX_VALUE nanoseconds are 2562047.788... hours
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "2562047.79h")))
        .contains("decayTime: \"2562047.79h\" (expected: at most 292 years)");
    assertThat(parsed("p2c_peak_ewma", Map.of("decayTime", "2562047.78h")).decayTime())
        .isEqualTo(Duration.ofNanos(9_223_372_008_000_000_000L));
    assertThat(error("p2c_peak_ewma", Map.of("defaultRtt", "-5ms")))
        .contains("defaultRtt: \"-5ms\" (expected: >= 0)");
    assertThat(error("p2c_peak_ewma", Map.of("defaultRtt", true)))
        .contains("defaultRtt: true (expected: a duration string");
  }

  @Test
  void badMaxFailsIsNamed() {
    // JSON numbers arrive as doubles; a whole number is shown as written (it read "0.0")
    assertThat(error("swrr", Map.of("maxFails", 0.0)))
        .isEqualTo("swrr config: maxFails: 0 (expected: an integer in 1-2147483647)");
    assertThat(error("swrr", Map.of("maxFails", 1.5))).contains("maxFails: 1.5 (expected");
    assertThat(error("swrr", Map.of("maxFails", -2.0))).contains("maxFails: -2 (expected");
    assertThat(error("swrr", Map.of("maxFails", 3e9))).contains("maxFails: 3000000000 (expected");
    assertThat(error("swrr", Map.of("maxFails", "2"))).contains("maxFails: 2 (expected");
  }

  @ParameterizedTest
  @CsvSource({"vnswrr, decayTime, [slowStart]", "weighted_random, x, [slowStart]",
      "least_loaded, maxFails, [slowStart]", "swrr, decayTime, '[maxFails, slowStart]'",
      "p2c_peak_ewma, decaytime, '[decayTime, defaultRtt, failurePenalty, slowStart]'",
      "aperture, decayTime, '[clientCount, clientIndex, slowStart]'"})
  void unknownFieldsAreNamedRatherThanIgnored(String policy, String field, String expected) {
    // the policy is named once (it was named twice: "swrr config: swrr: unknown field")
    assertThat(error(policy, Map.of(field, "1s")))
        .isEqualTo(policy + " config: unknown field '" + field + "' (expected: "
            + (expected.startsWith("[") ? "one of " : "") + expected + ")");
  }

  @Test
  void slowStartFailurePenaltyAndApertureCoordinateReachLbCore() {
    BalancerConfig c = parsed("p2c_peak_ewma", Map.of("failurePenalty", 3.0,
        "slowStart", Map.of("window", "45s", "aggression", 2.0, "minWeightPercent", 5)));
    assertThat(c.failurePenalty()).isEqualTo(3.0);
    assertThat(c.slowStartWindow()).isEqualTo(Duration.ofSeconds(45));
    assertThat(c.slowStartAggression()).isEqualTo(2.0);
    assertThat(c.slowStartMinWeightPercent()).isEqualTo(5);
    assertThat(parsed("least_loaded", Map.of("slowStart",
        Map.of("window", "1m", "minWeightPercent", 0.1))).slowStartMinWeightPercent())
        .isEqualTo(0.1);
    BalancerConfig v = parsed("vnswrr", Map.of("slowStart", Map.of("window", "1m")));
    assertThat(v.slowStartWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(v.slowStartAggression()).isEqualTo(1.0);
    assertThat(v.slowStartMinWeightPercent()).isEqualTo(10);
    BalancerConfig a = parsed("aperture", Map.of("clientIndex", 3.0, "clientCount", 40.0));
    assertThat(a.apertureIndex()).isEqualTo(3);
    assertThat(a.apertureCount()).isEqualTo(40);
    assertThat(provider("aperture")).isInstanceOf(ApertureLoadBalancerProvider.class);
  }

  @Test
  void badNewFieldsAreNamed() {
    assertThat(error("p2c_peak_ewma", Map.of("failurePenalty", 0.5)))
        .isEqualTo("p2c_peak_ewma config: failurePenalty: 0.5 (expected: a number >= 1.0)");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("aggression", 2.0))))
        .isEqualTo("vnswrr config: slowStart.window: null"
            + " (expected: a duration > 0, such as \"60s\")");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("window", "1m", "floor", 5.0))))
        .startsWith("vnswrr config: slowStart: unknown field 'floor'");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("window", "1m",
        "minWeightPercent", 0.0))))
        .isEqualTo("vnswrr config: slowStart.minWeightPercent: 0"
            + " (expected: a number > 0.0 and <= 100.0)");
    assertThat(error("least_loaded", Map.of("slowStart", Map.of("window", "1m",
        "minWeightPercent", 100.5))))
        .isEqualTo("least_loaded config: slowStart.minWeightPercent: 100.5"
            + " (expected: a number > 0.0 and <= 100.0)");
    assertThat(error("swrr", Map.of("slowStart", Map.of("window", "1m",
        "minWeightPercent", "1%"))))
        .isEqualTo("swrr config: slowStart.minWeightPercent: 1%"
            + " (expected: a number > 0.0 and <= 100.0)");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("window", "1m", "aggression", -1.0))))
        .isEqualTo("vnswrr config: slowStart.aggression: -1 (expected: a number > 0.0)");
    assertThat(error("aperture", Map.of("clientIndex", 40.0, "clientCount", 40.0)))
        .isEqualTo("aperture config: clientIndex: 40 (expected: an integer from 0 to 39)");
    assertThat(error("aperture", Map.of("clientIndex", 4.0)))
        .isEqualTo("aperture config: clientIndex and clientCount: 4 of null"
            + " (expected: both, or neither)");
    assertThat(error("least_loaded", Map.of("failurePenalty", 2.0)))
        .startsWith("least_loaded config: unknown field 'failurePenalty'");
  }

  /**
   * Parsing a duration's digits costs more than linear time (BigDecimal), so the text is bounded
   * first: a million digits took 207 s before the answer (on a loaded machine); refused now
   * before any parsing.
   */
  @Test
  void longDurationTextIsRefusedBeforeItIsParsed() {
    String million = "1".repeat(1_000_000) + "s";
    String message = error("p2c_peak_ewma", Map.of("decayTime", million));
    assertThat(message.length()).as("message length (the text is not quoted)").isLessThan(200);
    assertThat(message)
        .isEqualTo("p2c_peak_ewma config: decayTime: a string of 1000001 characters (expected: at"
            + " most 64, e.g. \"10s\")");
    String padded = "0." + "0".repeat(60) + "1s";
    assertThat(padded).hasSize(64);
    assertThat(parsed("p2c_peak_ewma", Map.of("defaultRtt", padded)).defaultRtt()).isZero();
  }
}

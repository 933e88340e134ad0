package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.KeyedModuloPolicy;
import dev.ballast.grpc.internal.LabelSubsetPolicyConfig;
import dev.ballast.grpc.internal.LocalityPolicyConfig;
import dev.ballast.grpc.internal.PolicyConfig;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.time.Duration;
import java.util.List;
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
    return ((PolicyConfig) c.getConfig()).balancerOver(BalancerConfig.defaults());
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
    PolicyConfig c = (PolicyConfig) provider("vnswrr")
        .parseLoadBalancingPolicyConfig(Map.of()).getConfig();

    assertThat(c.balancerOver(panicky).panicPick()).isFalse();
    PolicyConfig overPanicky = (PolicyConfig) new VnswrrLoadBalancerProvider(panicky)
        .parseLoadBalancingPolicyConfig(Map.of()).getConfig();
    assertThat(overPanicky.balancer().panicPick()).isFalse();
  }

  @Test
  void theFieldsApplyOverTheProvidersBaseSettings() {
    // a provider made over settings of its own keeps them where the service config is silent
    // (they were dropped for lb-core's defaults, but for the ticker and random source)
    LoadBalancerProvider p = new P2cPeakEwmaLoadBalancerProvider(BalancerConfig.builder()
        .decayTime(Duration.ofSeconds(3)).defaultRtt(Duration.ofMillis(7)).build());

    BalancerConfig silent = ((PolicyConfig) p.parseLoadBalancingPolicyConfig(Map.of())
        .getConfig()).balancer();
    BalancerConfig given = ((PolicyConfig) p.parseLoadBalancingPolicyConfig(
        Map.of("decayTime", "5s")).getConfig()).balancer();

    assertThat(silent.decayTime()).isEqualTo(Duration.ofSeconds(3));
    assertThat(silent.defaultRtt()).isEqualTo(Duration.ofMillis(7));
    assertThat(given.decayTime()).isEqualTo(Duration.ofSeconds(5));
    assertThat(given.defaultRtt()).isEqualTo(Duration.ofMillis(7));
  }

  @Test
  void aCompositesChildrenTakeTheirFieldsOverTheProvidersBaseToo() {
    // the base's settings reach the children of label_subset and locality as a top-level
    // policy's (they were lb-core's defaults but for the ticker and random source)
    BalancerConfig base = BalancerConfig.builder().decayTime(Duration.ofSeconds(3)).build();
    LocalityPolicyConfig zones = (LocalityPolicyConfig) new LocalityLoadBalancerProvider(base)
        .parseLoadBalancingPolicyConfig(Map.of("childPolicy", List.of(Map.of("p2c_peak_ewma",
            Map.of("defaultRtt", "7ms"))))).getConfig();
    LabelSubsetPolicyConfig subsets = (LabelSubsetPolicyConfig)
        new LabelSubsetLoadBalancerProvider(base).parseLoadBalancingPolicyConfig(Map.of(
            "selectors", List.of(List.of("zone")), "childPolicy",
            List.of(Map.of("p2c_peak_ewma", Map.of()))))
        .getConfig();

    assertThat(zones.child().balancer().decayTime()).isEqualTo(Duration.ofSeconds(3));
    assertThat(zones.child().balancer().defaultRtt()).isEqualTo(Duration.ofMillis(7));
    assertThat(subsets.child().balancer().decayTime()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aRegisteredPolicyTakesTheBalancerOptionsBesideItsOwn() {
    // as lb-core's own policies do: one JSON object, each field decoded by the set it belongs to
    ConfigOrError c = new PolicyLoadBalancerProvider("weighted_round_robin")
        .parseLoadBalancingPolicyConfig(Map.of("slowStart", Map.of("window", "30s"),
            "blackoutPeriod", "2s"));

    assertThat(c.getError()).isNull();
    PolicyConfig p = (PolicyConfig) c.getConfig();
    assertThat(p.balancer().slowStartWindow()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.own().options()).containsEntry("blackoutPeriod", "2s");
  }

  @Test
  void aTeamsKeyedPolicyTakesTheBalancerOptionsToo() {
    // lb-core's key balancers take their hash options only; a team's takes maxEffort, its
    // KeyedDistributor's number of attempts
    if (PolicyRegistry.defaultRegistry().find(KeyedModuloPolicy.NAME).isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new KeyedModuloPolicy());
    }
    ConfigOrError c = new PolicyLoadBalancerProvider(KeyedModuloPolicy.NAME)
        .parseLoadBalancingPolicyConfig(Map.of("maxEffort", 2));
    assertThat(c.getError()).isNull();
    assertThat(((PolicyConfig) c.getConfig()).balancer().maxEffort()).isEqualTo(2);
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
    String expected = " (expected: a duration such as 10s, 250ms or 1.5m)";
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", 10.0)))
        .isEqualTo("p2c_peak_ewma config: decayTime: 10" + expected);
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "10")))
        .endsWith("decayTime: 10" + expected);
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "10 parsecs")))
        .endsWith("decayTime: 10 parsecs" + expected);
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "ten s")))
        .endsWith("decayTime: ten s" + expected);
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "s"))).endsWith("decayTime: s" + expected);
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "0s")))
        .endsWith("decayTime: 0s (expected: > 0)");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "-1s")))
        .endsWith("decayTime: -1s (expected: > 0)");
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "9999999h")))
        .endsWith("decayTime: 9999999h (expected: at most 292 years)");
    // Long.MAX_VALUE nanoseconds are 2562047.788... hours
    assertThat(error("p2c_peak_ewma", Map.of("decayTime", "2562047.79h")))
        .endsWith("decayTime: 2562047.79h (expected: at most 292 years)");
    assertThat(parsed("p2c_peak_ewma", Map.of("decayTime", "2562047.78h")).decayTime())
        .isEqualTo(Duration.ofNanos(9_223_372_008_000_000_000L));
    assertThat(error("p2c_peak_ewma", Map.of("defaultRtt", "-5ms")))
        .endsWith("defaultRtt: -5ms (expected: >= 0)");
    assertThat(error("p2c_peak_ewma", Map.of("defaultRtt", true)))
        .endsWith("defaultRtt: true" + expected);
  }

  @Test
  void badMaxFailsIsNamed() {
    // JSON numbers arrive as doubles; a whole number is shown as written (it read "0.0")
    assertThat(error("swrr", Map.of("maxFails", 0.0)))
        .isEqualTo("swrr config: maxFails: 0 (expected: > 0)");
    assertThat(error("swrr", Map.of("maxFails", 1.5)))
        .endsWith("maxFails: 1.5 (expected: an integer)");
    assertThat(error("swrr", Map.of("maxFails", -2.0))).endsWith("maxFails: -2 (expected: > 0)");
    assertThat(error("swrr", Map.of("maxFails", 3e9)))
        .endsWith("maxFails: 3000000000 (expected: an integer)");
    // text is read as in every front end (a Spring property is text)
    assertThat(parsed("swrr", Map.of("maxFails", "2")).maxFails()).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource({"vnswrr, decaytme, decayTime", "p2c_peak_ewma, defaultRt, defaultRtt",
      "swrr, maxFail, maxFails", "aperture, clientIndex, ''"})
  void unknownFieldsAreNamedWithTheNearestRatherThanIgnored(String policy, String field,
      String nearest) {
    // the policy is named once (it was named twice: "swrr config: swrr: unknown field")
    assertThat(error(policy, Map.of(field, "1s")))
        .startsWith(policy + " config: " + field + ": unknown balancer option"
            + (nearest.isEmpty() ? "" : ", did you mean " + nearest + "?")
            + " (expected: one of maxEffort, decayTime, defaultRtt,");
  }

  @Test
  void panicPickIsNotAGrpcOption() {
    assertThat(error("vnswrr", Map.of("panicPick", true)))
        .startsWith("vnswrr config: panicPick: unknown balancer option");
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
    BalancerConfig a = parsed("aperture", Map.of("aperture",
        Map.of("clientIndex", 3.0, "clientCount", 40.0)));
    assertThat(a.apertureIndex()).isEqualTo(3);
    assertThat(a.apertureCount()).isEqualTo(40);
    assertThat(parsed("aperture", Map.of("aperture.clientIndex", 3.0, "aperture.clientCount",
        40.0)).apertureIndex()).isEqualTo(3);
    assertThat(provider("aperture")).isInstanceOf(ApertureLoadBalancerProvider.class);
  }

  @Test
  void badNewFieldsAreNamed() {
    assertThat(error("p2c_peak_ewma", Map.of("failurePenalty", 0.5)))
        .isEqualTo("p2c_peak_ewma config: failurePenalty: 0.5 (expected: >= 1, 1 for off)");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("window", "1m", "floor", 5.0))))
        .startsWith("vnswrr config: slowStart.floor: unknown balancer option (expected:");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("window", "1m",
        "minWeightPercent", 0.0))))
        .isEqualTo("vnswrr config: slowStart.minWeightPercent: 0 (expected: > 0 and <= 100)");
    assertThat(error("least_loaded", Map.of("slowStart", Map.of("window", "1m",
        "minWeightPercent", 100.5))))
        .isEqualTo("least_loaded config: slowStart.minWeightPercent: 100.5"
            + " (expected: > 0 and <= 100)");
    assertThat(error("swrr", Map.of("slowStart", Map.of("window", "1m",
        "minWeightPercent", "1%"))))
        .isEqualTo("swrr config: slowStart.minWeightPercent: 1% (expected: a number)");
    assertThat(error("vnswrr", Map.of("slowStart", Map.of("window", "1m", "aggression", -1.0))))
        .isEqualTo("vnswrr config: slowStart.aggression: -1 (expected: > 0)");
    assertThat(error("aperture", Map.of("aperture",
        Map.of("clientIndex", 40.0, "clientCount", 40.0))))
        .isEqualTo("aperture config: aperture.clientIndex: 40 (expected: 0 to 39)");
    assertThat(error("aperture", Map.of("aperture", Map.of("clientIndex", 4.0))))
        .isEqualTo("aperture config: aperture.clientIndex: 4 (expected: 0 to 0)");
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
        .isEqualTo("p2c_peak_ewma config: decayTime: a text of 1000001 characters (expected: a"
            + " duration such as 10s, 250ms or 1.5m)");
    String padded = "0." + "0".repeat(60) + "1s";
    assertThat(padded).hasSize(64);
    assertThat(parsed("p2c_peak_ewma", Map.of("defaultRtt", padded)).defaultRtt()).isZero();
  }
}

package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.testing.LogRecorder;
import dev.ballast.grpc.internal.LabelSubsetPolicyConfig;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.internal.JsonParser;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Service-config parsing of {@code label_subset}: defaults, every field, every bad value. */
class LabelSubsetConfigTest {

  private static final LoadBalancerProvider PROVIDER =
      LoadBalancerRegistry.getDefaultRegistry().getProvider("label_subset");

  @SuppressWarnings("unchecked")
  private static Map<String, ?> json(String text) {
    try {
      return (Map<String, ?>) JsonParser.parse(text.replace('\'', '"'));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static LabelSubsetPolicyConfig parsed(String text) {
    ConfigOrError c = PROVIDER.parseLoadBalancingPolicyConfig(json(text));
    assertThat(c.getError()).as("error for %s", text).isNull();
    return (LabelSubsetPolicyConfig) c.getConfig();
  }

  private static String error(String text) {
    ConfigOrError c = PROVIDER.parseLoadBalancingPolicyConfig(json(text));
    assertThat(c.getConfig()).as("config for %s", text).isNull();
    return c.getError().getDescription();
  }

  @Test
  void aSkippedFirstChoiceIsSaidOncePerList() {
    try (LogRecorder log = LogRecorder.on("dev.ballast.grpc.internal.SkippedChildren")) {
      for (int i = 0; i < 3; i++) { // a service config is parsed again on every resolution
        assertThat(parsed("{'selectors': [['tier']], 'childPolicy': [{'p2c_peak_ewmb': {}},"
            + " {'least_loaded': {}}]}").child().name()).isEqualTo("least_loaded");
      }
      assertThat(log.lines()).containsExactly("WARNING childPolicy: [p2c_peak_ewmb] skipped"
          + " (unknown, or not supported here; did you mean p2c_peak_ewma?), taking least_loaded,"
          + " the first entry it knows, as gRPC does");
      // gRPC's children under locality too
      var locality = new LocalityLoadBalancerProvider().parseLoadBalancingPolicyConfig(
          json("{'childPolicy': [{'pick_frist': {}}, {'round_robin': {}}]}"));
      assertThat(locality.getError()).isNull();
      assertThat(log.lines()).last().isEqualTo("WARNING childPolicy: [pick_frist] skipped"
          + " (unknown, or not supported here; did you mean pick_first?), taking round_robin, the"
          + " first entry it knows, as gRPC does");
      // a registered policy skipped because it cannot be a child: no suggestion of another
      assertThat(parsed("{'selectors': [['tier']], 'childPolicy': [{'weighted_round_robin':"
          + " {}}, {'vnswrr': {}}]}").child().name()).isEqualTo("vnswrr");
      assertThat(log.lines()).last().isEqualTo("WARNING childPolicy: [weighted_round_robin]"
          + " skipped (unknown, or not supported here), taking vnswrr, the first entry it knows,"
          + " as gRPC does");
    }
  }

  @Test
  void registeredUnderItsName() {
    assertThat(PROVIDER).isInstanceOf(LabelSubsetLoadBalancerProvider.class);
  }

  @Test
  void defaultsBesideTheRequiredSelectors() {
    LabelSubsetPolicyConfig c = parsed("{'selectors': [['zone']]}");

    assertThat(c.subset().selectors()).containsExactly(List.of("zone"));
    assertThat(c.subset().fallbackPolicy()).isEqualTo(FallbackPolicy.NO_FALLBACK);
    assertThat(c.subset().defaultSubset()).isNull();
    assertThat(c.subset().headerPrefix()).isEqualTo("x-lb-");
    assertThat(c.subset().allowRedundantKeys()).isFalse();
    assertThat(c.child().name()).isEqualTo(Algorithm.ROUND_ROBIN.id());
  }

  @Test
  void zonesUnderASubsetOverRoundRobinAreLbCoresRoundRobin() {
    // gRPC has a round_robin too, which locality alone would take; a subset's zones are lb-core's
    LabelSubsetPolicyConfig c = parsed("{'selectors': [['tier']], 'childPolicy': [{'locality':"
        + " {'localZone': 'a', 'callerZones': {'a': 1, 'b': 1},"
        + " 'childPolicy': [{'round_robin': {}}]}}]}");
    assertThat(c.child().name()).isEqualTo(Algorithm.ROUND_ROBIN.id());
    assertThat(c.locality().localZone()).isEqualTo("a");
    // gRPC's rule, first supported wins, over what a subset's zones support
    assertThat(parsed("{'selectors': [['tier']], 'childPolicy': [{'locality': {'childPolicy':"
        + " [{'pick_first': {}}, {'round_robin': {}}]}}]}").child().name())
        .isEqualTo(Algorithm.ROUND_ROBIN.id());
    assertThat(error("{'selectors': [['tier']], 'childPolicy': [{'locality': {'childPolicy':"
        + " [{'round_robin': {'decayTime': 'soon'}}]}}]}"))
        .contains("childPolicy: locality: childPolicy: round_robin: decayTime: soon");
    assertThat(error("{'selectors': [['tier']], 'childPolicy': [{'locality': {'localZon': 'a'}}]}"))
        .contains("childPolicy: locality: localZon: unknown locality option, did you mean"
            + " localZone?");
  }

  @Test
  void everyField() {
    LabelSubsetPolicyConfig c = parsed("{'selectors': [['zone'], ['zone', 'version']],"
        + " 'fallbackPolicy': 'DEFAULT_SUBSET', 'defaultSubset': {'version': 'v1'},"
        + " 'headerPrefix': 'x-route-', 'allowRedundantKeys': true,"
        + " 'childPolicy': [{'no_such_policy': {}}, {'p2c_peak_ewma': {'decayTime': '2s'}},"
        + " {'vnswrr': {}}]}");

    // each selector's keys are sorted
    assertThat(c.subset().selectors()).containsExactly(List.of("zone"), List.of("version", "zone"));
    assertThat(c.subset().fallbackPolicy()).isEqualTo(FallbackPolicy.DEFAULT_SUBSET);
    assertThat(c.subset().defaultSubset()).isEqualTo(Map.of("version", "v1"));
    assertThat(c.subset().headerPrefix()).isEqualTo("x-route-");
    assertThat(c.subset().allowRedundantKeys()).isTrue();
    assertThat(c.child().name()).isEqualTo(Algorithm.P2C_PEAK_EWMA.id());
    assertThat(c.child().balancer().decayTime()).isEqualTo(Duration.ofSeconds(2));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{}| selectors: none (expected: a list of label-key lists",
      "{'selectors': []}| selectors: none (expected",
      "{'selectors': 'zone'}| selectors: zone (expected: a list of label-key lists",
      "{'selectors': [[]]}| selectors: [[]] (expected: sets of label keys, none empty,",
      "{'selectors': [[1]]}| selectors: [1] (expected: a list of strings",
      "{'selectors': [['zone', 'zone']]}| selectors: [[zone, zone]] (expected: sets of label"
          + " keys, none empty, no key twice in a set, no set twice)",
      "{'selectors': [['zone'], ['zone']]}| selectors: [[zone], [zone]] (expected: sets of",
      "{'selectors': [['a/b']]}| selectors: key a/b cannot travel in header x-lb-a/b",
      // each letter lower-cases to a header character, the whole string does not
      "{'selectors': [['\u0130d']]}| selectors: key \u0130d cannot travel in header"
          + " x-lb-\u0130d (expected: letters, digits, '-', '_' or '.' once lower-cased)",
      "{'selectors': [['zone']], 'fallbackPolicy': 'ANY'}| fallbackPolicy: ANY (expected: one"
          + " of no_fallback, any_endpoint, default_subset)",
      "{'selectors': [['zone']], 'fallbackPolicy': 'any-endpiont'}| fallbackPolicy: any-endpiont"
          + " (did you mean any_endpoint? expected",
      "{'selectors': [['zone']], 'fallbackPolicy': 3}| fallbackPolicy: 3 (expected: one of",
      "{'selectors': [['zone']], 'fallbackPolicy': 'DEFAULT_SUBSET'}| defaultSubset: none"
          + " (expected: labels when fallbackPolicy is default_subset)",
      "{'selectors': [['zone']], 'defaultSubset': ['v1']}| defaultSubset: [v1] (expected: an"
          + " object of strings",
      "{'selectors': [['zone']], 'defaultSubset': {'version': 1}}| defaultSubset: {version=1}"
          + " (expected: an object of strings",
      "{'selectors': [['zone']], 'headerPrefix': 'X-LB-'}| headerPrefix: X-LB- (expected:"
          + " lowercase letters",
      "{'selectors': [['zone']], 'allowRedundantKeys': 'yes'}| allowRedundantKeys: yes"
          + " (expected: true or false)",
      "{'selectors': [['zone']], 'childPolicy': [{'pick_first': {}}]}| childPolicy: none of"
          + " [pick_first] is supported (expected: one of [locality, round_robin,"
          + " weighted_random, swrr, vnswrr, least_loaded, p2c_peak_ewma, aperture",
      "{'selectors': [['zone']], 'childPolicy': [{'localty': {}}]}| childPolicy: none of"
          + " [localty] is supported (did you mean locality?",
      "{'selectors': [['zone']], 'childPolicy': [{'p2c_peak_ewm': {}}]}| childPolicy: none of"
          + " [p2c_peak_ewm] is supported (did you mean p2c_peak_ewma?",
      // a real policy that cannot be a child is not a typo of another: no "did you mean"
      "{'selectors': [['zone']], 'childPolicy': [{'weighted_round_robin': {}}]}| childPolicy:"
          + " none of [weighted_round_robin] is supported (weighted_round_robin reads load"
          + " reports, which no composite's child gets; expected: one of [locality,",
      "{'selectors': [['zone']], 'childPolicy': ['vnswrr']}| childPolicy: vnswrr (expected: an"
          + " object with one policy name",
      "{'selectors': [['zone']], 'childPolicy': [{'p2c_peak_ewma': {'decayTime': 'soon'}}]}|"
          + " childPolicy: p2c_peak_ewma: decayTime: soon (expected: a duration",
      "{'selectors': [['zone']], 'childPolicy': [{'vnswrr': 1}]}| childPolicy: vnswrr: 1"
          + " (expected: an object)",
      "{'selectors': [['zone']], 'selector': [['zone']]}| label_subset config: selector: unknown"
          + " subset option, did you mean selectors?"
  })
  void badValuesAreNamed(String config, String expected) {
    assertThat(error(config)).startsWith("label_subset config: ").contains(expected.trim());
  }
}

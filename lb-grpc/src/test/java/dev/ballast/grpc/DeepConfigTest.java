package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A policy config is outside data (a name resolver's service config): one nested 20,000 deep
 * comes back as an error naming the depth, never as a StackOverflowError.
 */
class DeepConfigTest {

  private static Object deep(int depth, boolean lists) {
    Object v = "x";
    for (int i = 0; i < depth; i++) {
      if (lists) {
        List<Object> l = new ArrayList<>();
        l.add(v);
        v = l;
      } else {
        Map<String, Object> m = new HashMap<>();
        m.put("a", v);
        v = m;
      }
    }
    return v;
  }

  @ParameterizedTest
  @CsvSource({
      "vnswrr, slowStart", "swrr, maxFails", "p2c_peak_ewma, decayTime",
      "least_loaded, slowStart", "weighted_random, slowStart", "aperture, clientCount",
      "ketama, requestHashHeader", "maglev, requestHashHeader",
      "ballast_ring_hash, minRingSize", "label_subset, selectors", "label_subset, childPolicy"})
  void aDeeplyNestedConfigIsAnErrorNamingTheDepth(String policy, String field) {
    LoadBalancerProvider p = LoadBalancerRegistry.getDefaultRegistry().getProvider(policy);
    assertThat(p).as(policy).isNotNull();
    for (boolean lists : new boolean[] {false, true}) {
      ConfigOrError c = p.parseLoadBalancingPolicyConfig(Map.of(field, deep(20_000, lists)));
      assertThat(c.getConfig()).isNull();
      assertThat(c.getError().getDescription())
          .contains(policy + " config: " + field
              + ": nested more than 16 deep (expected: at most 16)");
    }
  }
}

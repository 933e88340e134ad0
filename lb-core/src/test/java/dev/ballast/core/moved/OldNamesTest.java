package dev.ballast.core.moved;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Code written against the names lb-core's types had in the previous version still compiles and
 * runs: the deprecated aliases of the types moved so that lb-core's packages form no cycle.
 */
@SuppressWarnings("removal")
class OldNamesTest {

  @Test
  void theOldChildBalancerNameStillMakesAndUsesAChild() {
    dev.ballast.core.ChildBalancer<String> child = dev.ballast.core.composite.ChildBalancer
        .create(Algorithm.ROUND_ROBIN, BalancerConfig.defaults());
    child.update(List.of(Endpoint.parse("10.0.0.1:80")), e -> "a");
    Node<String> picked = child.pick();
    assertThat(picked.value()).isEqualTo("a");
    picked.complete(1_000, true);
    assertThat(dev.ballast.core.composite.ChildBalancer.of(child)).isSameAs(child);
  }

  @Test
  void theOldOptionNamesAreTheSameOptions() {
    assertThat(dev.ballast.core.config.CoreOptions.BALANCER)
        .isSameAs(dev.ballast.core.policy.CoreOptions.BALANCER);
    assertThat(dev.ballast.core.config.CoreOptions.BALANCER.decode(Map.of("maxEffort", 2))
        .maxEffort()).isEqualTo(2);
    assertThat(dev.ballast.core.config.CoreOptions.LOCALITY)
        .isSameAs(dev.ballast.core.policy.CoreOptions.LOCALITY);
    assertThat(dev.ballast.core.config.LoadOptions.WEIGHTED_ROUND_ROBIN)
        .isSameAs(dev.ballast.core.load.LoadOptions.WEIGHTED_ROUND_ROBIN);
  }
}

package dev.ballast.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.testing.KeyedModuloPolicy;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A team's key-picking policy written as a {@link KeyedDistributor}: a key keeps its node (busy
 * or not), a closed one moves the key to its next attempt's, a pick without a key reads the
 * keyless distributor, and no node open ends as every balancer's pick does.
 */
class KeyedDistributorBalancerTest {

  private static KeyedDistributorBalancer<String> balancer(int maxEffort) {
    KeyedDistributorBalancer<String> b = new KeyedDistributorBalancer<>("modulo",
        BalancerConfig.builder().random(new SplittableRandom(3)).maxEffort(maxEffort)
            .panicPick(false).build(), KeyedModuloPolicy.MODULO);
    b.update(Endpoint.parseList("10.0.0.1:80,10.0.0.2:80,10.0.0.3:80"), Endpoint::address);
    return b;
  }

  @Test
  void aKeyKeepsItsNodeAndAClosedOneMovesItToTheNextAttempt() {
    KeyedDistributorBalancer<String> b = balancer(3);
    HashBalancer<String> keyed = b; // what every front end passes a key to
    assertThat(keyed.pick(4)).isSameAs(b.nodes().get(1));
    for (int i = 0; i < 10; i++) {
      assertThat(keyed.pickUncounted(4).value()).isEqualTo("10.0.0.2:80");
    }
    assertThat(b.nodes().get(1).pending()).isEqualTo(1); // pick counts, pickUncounted does not
    assertThat(keyed.pick("tenant-7")).isSameAs(keyed.pick(keyed.hash("tenant-7")));

    b.nodes().get(1).setAvailability(Availability.BUSY); // a busy node keeps its keys
    assertThat(keyed.pickUncounted(4).value()).isEqualTo("10.0.0.2:80");
    b.nodes().get(1).setAvailability(Availability.CLOSED);
    assertThat(keyed.pickUncounted(4).value()).isEqualTo("10.0.0.3:80");
    b.nodes().get(2).setAvailability(Availability.CLOSED);
    assertThat(keyed.pickUncounted(4).value()).isEqualTo("10.0.0.1:80");
  }

  @Test
  void pastTheEffortTheSearchScansThenThrowsWithNoNodeOpen() {
    KeyedDistributorBalancer<String> b = balancer(1);
    b.nodes().get(1).setAvailability(Availability.CLOSED);
    // one attempt (closed), then the scan finds an open node
    assertThat(b.pickUncounted(4).value()).isNotEqualTo("10.0.0.2:80");
    for (Node<String> n : b.nodes()) {
      n.setAvailability(Availability.CLOSED);
    }
    assertThatThrownBy(() -> b.pick(4)).isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("modulo");
  }

  @Test
  void aPickWithoutAKeyReadsTheKeylessDistributorAndAnEmptySetThrows() {
    KeyedDistributorBalancer<String> b = balancer(3);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      seen.add(b.pickUncounted().value());
    }
    assertThat(seen).hasSize(3);
    b.update(List.of(), Endpoint::address);
    assertThatThrownBy(() -> b.pick(4)).isInstanceOf(NoAvailableEndpointException.class);
  }
}

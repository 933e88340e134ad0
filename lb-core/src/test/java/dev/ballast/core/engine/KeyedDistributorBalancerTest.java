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
 * or not), a closed one moves the key to its next attempt's, past the effort one walk from where
 * the hash points still gives a key one node whatever the random source, a pick without a key
 * spreads, and no node open ends as every balancer's pick does.
 */
class KeyedDistributorBalancerTest {

  private static final String NODES = "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80,10.0.0.4:80";

  private static KeyedDistributorBalancer<String> balancer(int maxEffort, long seed) {
    KeyedDistributorBalancer<String> b = new KeyedDistributorBalancer<>("modulo",
        BalancerConfig.builder().random(new SplittableRandom(seed)).maxEffort(maxEffort)
            .panicPick(false).build(), KeyedModuloPolicy.MODULO);
    b.update(Endpoint.parseList(NODES), Endpoint::address);
    return b;
  }

  @Test
  void aKeyKeepsItsNodeAndAClosedOneMovesItToTheNextAttempt() {
    KeyedDistributorBalancer<String> b = balancer(3, 3);
    HashBalancer<String> keyed = b; // what the front ends pass a key to
    assertThat(keyed.pick(5)).isSameAs(b.nodes().get(1));
    for (int i = 0; i < 10; i++) {
      assertThat(keyed.pickUncounted(5).value()).isEqualTo("10.0.0.2:80");
    }
    assertThat(b.nodes().get(1).pending()).isEqualTo(1); // pick counts, pickUncounted does not
    assertThat(keyed.pick("tenant-7")).isSameAs(keyed.pick(keyed.hash("tenant-7")));

    b.nodes().get(1).setAvailability(Availability.BUSY); // a busy node keeps its keys
    assertThat(keyed.pickUncounted(5).value()).isEqualTo("10.0.0.2:80");
    b.nodes().get(1).setAvailability(Availability.CLOSED);
    assertThat(keyed.pickUncounted(5).value()).isEqualTo("10.0.0.3:80");
    b.nodes().get(2).setAvailability(Availability.CLOSED);
    assertThat(keyed.pickUncounted(5).value()).isEqualTo("10.0.0.4:80");
  }

  @Test
  void pastTheEffortAKeyStillLandsOnOneNodeWhateverTheRandomSource() {
    // attempts name nodes 1 and 2 (hash mod 4 = 1), both closed; the walk starts at node
    // (5 * 4) >>> 32 = 0, open, as is node 3: a random scan would take either
    long hash = (5L << 32) + 1;
    Set<String> landed = new HashSet<>();
    for (long seed = 0; seed < 5; seed++) {
      KeyedDistributorBalancer<String> b = balancer(2, seed);
      b.nodes().get(1).setAvailability(Availability.CLOSED);
      b.nodes().get(2).setAvailability(Availability.CLOSED);
      for (int i = 0; i < 10; i++) {
        landed.add(b.pickUncounted(hash).value());
      }
    }
    assertThat(landed).containsExactly("10.0.0.1:80");
  }

  @Test
  void aBusyNodeIsTakenPastTheEffortAndNoneOpenThrows() {
    KeyedDistributorBalancer<String> b = balancer(1, 3);
    for (Node<String> n : b.nodes()) {
      n.setAvailability(Availability.CLOSED);
    }
    b.nodes().get(3).setAvailability(Availability.BUSY);
    assertThat(b.pickUncounted(0).value()).isEqualTo("10.0.0.4:80"); // panic picks are off
    b.nodes().get(3).setAvailability(Availability.CLOSED);
    assertThatThrownBy(() -> b.pick(0)).isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("modulo");
  }

  @Test
  void aPickWithoutAKeySpreadsAndAnEmptySetThrows() {
    KeyedDistributorBalancer<String> b = balancer(3, 3);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      seen.add(b.pickUncounted().value());
    }
    assertThat(seen).hasSize(4);
    b.update(List.of(), Endpoint::address);
    assertThatThrownBy(() -> b.pick(4)).isInstanceOf(NoAvailableEndpointException.class);
  }
}

package dev.ballast.core;

import static dev.ballast.core.Fixtures.balancer;
import static dev.ballast.core.Fixtures.pickOnce;
import static dev.ballast.core.Fixtures.seeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Issue 2, item 5: unavailable nodes are skipped; none open fails or panics; empty fails. */
class AvailabilityTest {

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void skipsNodesThatAreNotOpen(Algorithm algorithm) {
    for (long seed = 0; seed < 20; seed++) {
      Balancer<Integer> b = balancer(algorithm, seeded(seed), 5, 1, 1, 3, 2, 1);
      List<Node<Integer>> nodes = b.nodes();
      nodes.get(0).setAvailability(Availability.CLOSED);
      nodes.get(3).setAvailability(Availability.BUSY);
      nodes.get(4).setAvailability(Availability.CLOSED);
      Set<Integer> seen = new TreeSet<>();
      for (int i = 0; i < 300; i++) {
        seen.add(pickOnce(b));
      }
      assertThat(seen).as("%s seed %d", algorithm, seed).containsExactly(1, 2, 5);
    }
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void findsTheLastOpenNodeBeyondTheEffort(Algorithm algorithm) {
    // Only the lightest of many nodes is open: the bounded effort misses it, the scan finds it.
    int[] w = new int[200];
    java.util.Arrays.fill(w, 10);
    w[123] = 1;
    Balancer<Integer> b = balancer(algorithm, seeded(9), w);
    for (Node<Integer> n : b.nodes()) {
      if (n.value() != 123) {
        n.setAvailability(Availability.CLOSED);
      }
    }
    for (int i = 0; i < 50; i++) {
      assertThat(pickOnce(b)).isEqualTo(123);
    }
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void noOpenNodeThrowsTypedException(Algorithm algorithm) {
    Balancer<Integer> b = balancer(algorithm, seeded(1), 1, 2, 3);
    b.nodes().forEach(n -> n.setAvailability(Availability.CLOSED));
    b.nodes().get(1).setAvailability(Availability.BUSY);
    assertThatThrownBy(b::pick)
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessage(algorithm.id() + ": no available endpoint (all 3 busy or closed)")
        .satisfies(e -> assertThat(((NoAvailableEndpointException) e).endpoints()).isEqualTo(3));
    assertThat(b.nodes()).allSatisfy(n -> assertThat(n.pending()).isZero());
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void panicModePicksABusyNodeFirst(Algorithm algorithm) {
    BalancerConfig config = seeded(2).toBuilder().panicPick(true).build();
    Balancer<Integer> b = balancer(algorithm, config, 1, 2, 3);
    b.nodes().forEach(n -> n.setAvailability(Availability.CLOSED));
    b.nodes().get(2).setAvailability(Availability.BUSY);
    for (int i = 0; i < 20; i++) {
      assertThat(pickOnce(b)).isEqualTo(2);
    }
    b.nodes().get(2).setAvailability(Availability.CLOSED);
    Node<Integer> anyway = b.pick();
    assertThat(anyway.availability()).isEqualTo(Availability.CLOSED);
    assertThat(anyway.pending()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void emptySetThrowsTypedException(Algorithm algorithm) {
    Balancer<Integer> b = algorithm.create(seeded(1));
    assertThatThrownBy(b::pick)
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessage(algorithm.id() + ": no endpoints");
    b.update(Fixtures.endpoints(1), e -> 0);
    assertThat(pickOnce(b)).isZero();
    b.update(List.of(), e -> 0);
    assertThatThrownBy(b::pick).isInstanceOf(NoAvailableEndpointException.class)
        .satisfies(e -> assertThat(((NoAvailableEndpointException) e).endpoints()).isZero());
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void recoveredNodeIsPickedAgain(Algorithm algorithm) {
    // time passes as calls complete: P2C peak EWMA tries the node again once what it knows of
    // it (the default RTT, against 1 ms measured on the other) is stale, 100 ms on
    Balancer<Integer> b = balancer(algorithm, Fixtures.ticking(3), 1, 1);
    Node<Integer> first = b.nodes().get(0);
    first.setAvailability(Availability.CLOSED);
    for (int i = 0; i < 20; i++) {
      assertThat(pickOnce(b)).isEqualTo(1);
    }
    first.setAvailability(Availability.OPEN);
    Set<Integer> seen = new TreeSet<>();
    for (int i = 0; i < 300; i++) {
      seen.add(pickOnce(b));
    }
    assertThat(seen).containsExactly(0, 1);
  }
}

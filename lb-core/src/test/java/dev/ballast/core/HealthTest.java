package dev.ballast.core;

import static dev.ballast.core.Fixtures.balancer;
import static dev.ballast.core.Fixtures.pickOnce;
import static dev.ballast.core.Fixtures.seeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** One notion of health: the endpoint's label and a check's verdict, read by every algorithm. */
class HealthTest {

  @Test
  void endpointsReadZonePriorityAndHealthFromTheirLabels() {
    Endpoint e = Endpoint.parse("10.0.0.1:80;zone=us-east-1a;priority=2;health=DEGRADED");
    assertThat(e.zone()).isEqualTo("us-east-1a");
    assertThat(e.priority()).isEqualTo(2);
    assertThat(e.health()).isEqualTo(Health.DEGRADED);
    Endpoint plain = Endpoint.parse("10.0.0.1:80");
    assertThat(plain.zone()).isNull();
    assertThat(plain.priority()).isZero();
    assertThat(plain.health()).isEqualTo(Health.HEALTHY);
    assertThat(Endpoint.of("h", 1, 1, Map.of("priority", "127")).priority()).isEqualTo(127);
  }

  @Test
  void badPriorityOrHealthIsNamed() {
    assertThatThrownBy(() -> Endpoint.parse("10.0.0.1:80;priority=-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("priority: -1 (expected: an integer in 0-127) in \"10.0.0.1:80;priority=-1\"");
    assertThatThrownBy(() -> Endpoint.parse("10.0.0.1:80;priority=128"))
        .hasMessageStartingWith("priority: 128 (expected: an integer in 0-127)");
    assertThatThrownBy(() -> Endpoint.of("h", 1, 1, Map.of("health", "sick")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("health: sick (expected: healthy, degraded or unhealthy)");
  }

  @Test
  void theNodeIsTheWorseOfItsEndpointAndTheVerdict() {
    Balancer<Integer> b = balancer(Algorithm.ROUND_ROBIN, seeded(1), 1, 1);
    Node<Integer> n = b.nodes().get(0);
    assertThat(n.health()).isEqualTo(Health.HEALTHY);
    n.setHealth(Health.UNHEALTHY);
    assertThat(n.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(n.availability()).isEqualTo(Availability.CLOSED);
    n.setHealth(Health.HEALTHY);
    assertThat(n.availability()).isEqualTo(Availability.OPEN);
    // the registry now says degraded: a healthy verdict does not hide it
    List<Endpoint> next = List.of(
        n.endpoint().withLabels(Map.of("health", "degraded")), b.nodes().get(1).endpoint());
    b.update(next, e -> 0);
    assertThat(n.health()).isEqualTo(Health.DEGRADED);
    assertThat(n.availability()).isEqualTo(Availability.OPEN);
    n.setHealth(Health.UNHEALTHY);
    b.update(List.of(n.endpoint().withLabels(Map.of()), b.nodes().get(1).endpoint()),
        e -> 0);
    assertThat(n.health()).as("the verdict outlives an update").isEqualTo(Health.UNHEALTHY);
  }

  @Test
  void anEjectionIsAVerdictOfItsOwnThatAPassingCheckDoesNotUndo() {
    Balancer<Integer> b = balancer(Algorithm.ROUND_ROBIN, seeded(1), 1, 1);
    Node<Integer> n = b.nodes().get(0);
    n.setEjected(true);
    assertThat(n.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(n.availability()).isEqualTo(Availability.CLOSED);
    n.setHealth(Health.HEALTHY);
    assertThat(n.health()).as("a passing check leaves the ejection").isEqualTo(Health.UNHEALTHY);
    n.setHealth(Health.UNHEALTHY);
    n.setEjected(false);
    assertThat(n.health()).as("a reinstatement leaves the check's verdict")
        .isEqualTo(Health.UNHEALTHY);
    b.update(List.of(n.endpoint(), b.nodes().get(1).endpoint()), e -> 0);
    n.setHealth(Health.HEALTHY);
    assertThat(n.health()).isEqualTo(Health.HEALTHY);
    n.setEjected(true);
    b.update(List.of(n.endpoint(), b.nodes().get(1).endpoint()), e -> 0);
    assertThat(n.health()).as("the ejection outlives an update").isEqualTo(Health.UNHEALTHY);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void unhealthyNodesAreSkippedByEveryAlgorithm(Algorithm algorithm) {
    Balancer<Integer> b = balancer(algorithm, seeded(3), 1, 2, 3, 1);
    b.nodes().get(1).setHealth(Health.UNHEALTHY);
    Set<Integer> seen = new TreeSet<>();
    for (int i = 0; i < 300; i++) {
      seen.add(pickOnce(b));
    }
    assertThat(seen).as("%s", algorithm).doesNotContain(b.nodes().get(1).value());
    assertThat(seen).hasSize(3);
  }
}

package dev.ballast.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The checker's state machine, driven by hand: a manual clock, a seeded random source and a probe
 * whose checks the test answers. No thread, no sleep.
 */
class HealthCheckerTest {

  private long now = 1_000_000_000L;
  private final List<Pending> started = new ArrayList<>();
  private int stopped;

  /** A check the probe was asked for, answered by the test. */
  private record Pending(Node<Integer> node, HealthProbe.Result result) {}

  private final HealthProbe<Integer> probe = (node, result) -> {
    started.add(new Pending(node, result));
    return () -> stopped++;
  };

  private HealthChecker<Integer> checker(HealthCheckConfig config) {
    return new HealthChecker<>(config, probe, () -> now, new SplittableRandom(7));
  }

  private static List<Node<Integer>> nodes(int n) {
    Balancer<Integer> b = Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults());
    List<Endpoint> es = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      es.add(Endpoint.of("10.0." + (i / 250) + "." + (i % 250 + 1), 8080));
    }
    b.update(es, es::indexOf);
    return b.nodes();
  }

  private void advance(Duration d) {
    now += d.toNanos();
  }

  private void answerAll(Health verdict) {
    List<Pending> copy = new ArrayList<>(started);
    started.clear();
    for (Pending p : copy) {
      p.result.report(verdict);
    }
  }

  private static HealthCheckConfig.Builder noJitter() {
    return HealthCheckConfig.builder().interval(Duration.ofSeconds(5))
        .timeout(Duration.ofSeconds(1)).initialJitter(Duration.ZERO);
  }

  @Test
  void thresholdsTurnResultsIntoVerdicts() {
    HealthChecker<Integer> c = checker(noJitter().unhealthyThreshold(2).healthyThreshold(3)
        .build());
    Node<Integer> node = nodes(1).get(0);
    c.update(List.of(node));
    c.runDue();
    assertThat(started).hasSize(1);
    answerAll(Health.UNHEALTHY);
    assertThat(node.health()).as("one failure of two").isEqualTo(Health.HEALTHY);
    advance(Duration.ofSeconds(5));
    c.runDue();
    answerAll(Health.UNHEALTHY);
    assertThat(node.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(node.availability()).isEqualTo(Availability.CLOSED);
    for (int pass = 1; pass <= 3; pass++) {
      advance(Duration.ofSeconds(5));
      c.runDue();
      answerAll(Health.HEALTHY);
      assertThat(node.health()).as("after %d passes", pass)
          .isEqualTo(pass < 3 ? Health.UNHEALTHY : Health.HEALTHY);
    }
    // a failure between passes starts the count again
    advance(Duration.ofSeconds(5));
    c.runDue();
    answerAll(Health.DEGRADED);
    assertThat(node.health()).as("a pass that says degraded").isEqualTo(Health.DEGRADED);
  }

  @Test
  void aCheckIsDueOneIntervalAfterTheLastEndedAndATimeoutIsAFailure() {
    HealthChecker<Integer> c = checker(noJitter().build());
    Node<Integer> node = nodes(1).get(0);
    c.update(List.of(node));
    assertThat(c.runDue()).as("the running check's timeout is next")
        .isEqualTo(Duration.ofSeconds(1).toNanos());
    advance(Duration.ofMillis(300));
    answerAll(Health.HEALTHY);
    advance(Duration.ofMillis(4_999));
    assertThat(c.runDue()).isEqualTo(1_000_000);
    assertThat(started).as("not due before 5 s after the answer").isEmpty();
    advance(Duration.ofMillis(1));
    c.runDue();
    assertThat(started).hasSize(1);
    HealthProbe.Result late = started.remove(0).result;
    advance(Duration.ofSeconds(1));
    c.runDue();
    assertThat(node.health()).as("no answer within the timeout").isEqualTo(Health.UNHEALTHY);
    assertThat(stopped).as("the timed-out check is stopped").isEqualTo(1);
    assertThat(c.inFlight()).isZero();
    late.report(Health.HEALTHY);
    assertThat(node.health()).as("a late answer is ignored").isEqualTo(Health.UNHEALTHY);
  }

  @Test
  void initialJitterSpreadsFirstChecksOverTheSpan() {
    HealthChecker<Integer> c = checker(noJitter().interval(Duration.ofSeconds(10))
        .initialJitter(Duration.ofSeconds(10)).maxInFlight(10_000).build());
    List<Node<Integer>> nodes = nodes(2000);
    c.update(nodes);
    int[] perSecond = new int[11];
    for (int s = 0; s <= 10; s++) {
      c.runDue();
      perSecond[s] = started.size();
      answerAll(Health.HEALTHY);
      advance(Duration.ofSeconds(1));
    }
    int total = 0;
    for (int s = 0; s <= 10; s++) {
      total += perSecond[s];
    }
    assertThat(total).as("each node once in the first span").isEqualTo(2000);
    for (int s = 1; s <= 10; s++) {
      // 200 a second expected; a binomial's 5 standard deviations is about 67
      assertThat(perSecond[s]).as("second %d of %s", s, java.util.Arrays.toString(perSecond))
          .isBetween(130, 270);
    }
    // and they stay spread: the next round repeats the first one's shape, one interval later
    int[] next = new int[10];
    for (int s = 0; s < 10; s++) {
      c.runDue();
      next[s] = started.size();
      answerAll(Health.HEALTHY);
      advance(Duration.ofSeconds(1));
    }
    assertThat(java.util.stream.IntStream.of(next).max().getAsInt()).isLessThan(300);
  }

  @Test
  void atMostMaxInFlightRunAndTheRestWaitInOrder() {
    HealthChecker<Integer> c = checker(noJitter().maxInFlight(3).build());
    List<Node<Integer>> nodes = nodes(10);
    c.update(nodes);
    c.runDue();
    assertThat(started).extracting(p -> p.node.value()).containsExactly(0, 1, 2);
    assertThat(c.waiting()).isEqualTo(7);
    c.runDue();
    assertThat(started).as("a run starts nothing while the slots are full").hasSize(3);
    Pending first = started.remove(0);
    first.result.report(Health.HEALTHY);
    assertThat(started).as("an answer starts the next waiting check").hasSize(3);
    assertThat(started.get(2).node.value()).isEqualTo(3);
    assertThat(c.inFlight()).isEqualTo(3);
    // answers and timeouts keep the bound: every node is checked once, never more than 3 at once
    Map<Integer, Integer> checks = new HashMap<>();
    checks.merge(0, 1, Integer::sum);
    while (!started.isEmpty()) {
      assertThat(c.inFlight()).isLessThanOrEqualTo(3);
      Pending p = started.remove(0);
      checks.merge(p.node.value(), 1, Integer::sum);
      p.result.report(Health.HEALTHY);
    }
    assertThat(checks).hasSize(10).allSatisfy((k, v) -> assertThat(v).isEqualTo(1));
    assertThat(c.completed()).isEqualTo(10);
  }

  @Test
  void tenThousandHangingEndpointsNeverRunMoreThanMaxInFlightChecks() {
    HealthChecker<Integer> c = checker(HealthCheckConfig.builder().interval(Duration.ofSeconds(5))
        .timeout(Duration.ofSeconds(1)).initialJitter(Duration.ofSeconds(5)).maxInFlight(64)
        .build());
    List<Node<Integer>> nodes = nodes(10_000);
    c.update(nodes);
    int most = 0;
    for (int tick = 0; tick < 200; tick++) { // 20 s of 100 ms ticks; no check ever answers
      c.runDue();
      most = Math.max(most, c.inFlight());
      advance(Duration.ofMillis(100));
    }
    assertThat(most).isEqualTo(64);
    // each slot frees once per timeout: 64 checks a second, whatever the number of endpoints
    assertThat(started).hasSizeBetween(64 * 20, 64 * 21);
    assertThat(stopped).as("every timed-out check was stopped").isEqualTo(started.size() - 64);
    long unhealthy = nodes.stream().filter(n -> n.health() == Health.UNHEALTHY).count();
    assertThat(unhealthy).isEqualTo(started.size() - 64);
  }

  @Test
  void removedNodesAreForgottenAndTheirChecksStopped() {
    HealthChecker<Integer> c = checker(noJitter().maxInFlight(1).build());
    List<Node<Integer>> nodes = nodes(3);
    c.update(nodes);
    c.runDue();
    Pending running = started.remove(0);
    c.update(nodes.subList(1, 3));
    assertThat(stopped).isEqualTo(1);
    assertThat(c.inFlight()).as("its slot is free").isZero();
    running.result.report(Health.UNHEALTHY);
    assertThat(nodes.get(0).health()).as("its answer is ignored").isEqualTo(Health.HEALTHY);
    c.runDue();
    assertThat(started).extracting(p -> p.node.value()).containsExactly(1);
    c.update(List.of(nodes.get(1)));
    assertThat(c.waiting()).as("the waiting node 2 left the queue").isZero();
    c.close();
    assertThat(stopped).isEqualTo(2);
    c.update(nodes);
    c.runDue();
    assertThat(started).hasSize(1).as("closed: nothing more starts");
  }

  @Test
  void aProbeThatThrowsFailsItsCheck() {
    HealthChecker<Integer> c = new HealthChecker<>(noJitter().build(), (n, r) -> {
      throw new IllegalStateException("no loop");
    }, () -> now, new SplittableRandom(1));
    Node<Integer> node = nodes(1).get(0);
    c.update(List.of(node));
    c.runDue();
    assertThat(node.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(c.inFlight()).isZero();
  }

  @Test
  void optionsAreCheckedAndNamed() {
    assertThat(HealthCheckConfig.OPTIONS.decode(Map.of("interval", "10s", "unhealthy-threshold",
        3)).unhealthyThreshold()).isEqualTo(3);
    assertThat(HealthCheckConfig.defaults().interval()).isEqualTo(Duration.ofSeconds(5));
    assertThatThrownBy(() -> HealthCheckConfig.OPTIONS.decode(Map.of("timeout", "0s")))
        .isInstanceOf(OptionException.class).hasMessageContaining("timeout: 0s (expected: ");
    assertThatThrownBy(() -> HealthCheckConfig.builder().maxInFlight(0))
        .hasMessage("maxInFlight: 0 (expected: > 0)");
  }
}

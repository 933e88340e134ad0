package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatorTest {

  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;

  private static Scenario.Builder oneBackend(long latencyNanos) {
    return Scenario.builder()
        .name("one")
        .backends(1, LatencyDistribution.constant(latencyNanos))
        .ratePerSecond(100)
        .durationNanos(S)
        .timeoutNanos(S);
  }

  @Test
  void oneBackendWithConstantLatencyGivesExactFigures() {
    for (Algorithm a : Algorithm.values()) {
      Result r = new Simulator(oneBackend(20 * MS).build()).run(a);
      assertThat(r.balancer()).isEqualTo(a.id());
      assertThat(r.requests()).isEqualTo(100);
      assertThat(r.successes()).isEqualTo(100);
      assertThat(r.attempts()).isEqualTo(100);
      assertThat(r.successRate()).isEqualTo(1.0);
      assertThat(r.picksPerBackend()).containsExactly(100);
      for (double p : Result.PERCENTILES) {
        assertThat(r.percentileMillis(p)).as("p%s", p).isEqualTo(20.0);
      }
      assertThat(r.maxMillis()).isEqualTo(20.0);
    }
  }

  @Test
  void enforcedTimeoutFailsTheSlowWindowAtTheTimeout() {
    Scenario s = oneBackend(20 * MS)
        .slowWindow(new SlowWindow(0, 500 * MS, S, LatencyDistribution.constant(2 * S)))
        .build();
    Result r = new Simulator(s).run(Algorithm.ROUND_ROBIN);
    // Requests arrive every 10 ms; the 50 from 500 ms on take 2 s and time out at 1 s.
    assertThat(r.requests()).isEqualTo(100);
    assertThat(r.successes()).isEqualTo(50);
    assertThat(r.successRate()).isEqualTo(0.5);
    assertThat(r.percentileMillis(50)).isEqualTo(20.0);
    assertThat(r.percentileMillis(90)).isEqualTo(1000.0);
    assertThat(r.maxMillis()).isEqualTo(1000.0);
  }

  @Test
  void measuredTimeoutCountsLateAnswersAsFailuresWithTheirRealLatency() {
    Scenario s = oneBackend(20 * MS)
        .slowWindow(new SlowWindow(0, 500 * MS, S, LatencyDistribution.constant(2 * S)))
        .enforceTimeout(false)
        .build();
    Result r = new Simulator(s).run(Algorithm.ROUND_ROBIN);
    assertThat(r.successes()).isEqualTo(50);
    assertThat(r.percentileMillis(50)).isEqualTo(20.0);
    assertThat(r.maxMillis()).isEqualTo(2000.0);
  }

  @Test
  void roundRobinSplitsEvenlyAndPercentilesFollowTheBackends() {
    Scenario s = Scenario.builder()
        .backends(2, LatencyDistribution.constant(10 * MS))
        .backend(1, LatencyDistribution.constant(30 * MS))
        .ratePerSecond(100)
        .durationNanos(S)
        .build();
    Result r = new Simulator(s).run(Algorithm.ROUND_ROBIN);
    assertThat(r.picksPerBackend()).containsExactly(50, 50);
    assertThat(r.percentileMillis(50)).isEqualTo(10.0);
    assertThat(r.percentileMillis(90)).isEqualTo(30.0);
    assertThat(r.successRate()).isEqualTo(1.0);
  }

  @Test
  void retriesSendANewAttemptAfterEachTryTimeout() {
    // Try timeout 20 ms, 2 retries: attempts at 0, 20 and 40 ms; the third answers at 90 ms.
    Scenario s = oneBackend(50 * MS).timeoutNanos(100 * MS).retries(2).tryTimeoutNanos(20 * MS).build();
    Result r = new Simulator(s).run(Algorithm.P2C_PEAK_EWMA);
    assertThat(r.successes()).isEqualTo(100);
    assertThat(r.attempts()).isEqualTo(300);
    assertThat(r.maxMillis()).isEqualTo(90.0);
    assertThat(r.percentileMillis(50)).isEqualTo(90.0);
  }

  @Test
  void backupRequestIsSentOnceAndTheFirstAnswerWins() {
    Scenario s = Scenario.builder()
        .backends(2, LatencyDistribution.constant(50 * MS))
        .backend(1, LatencyDistribution.constant(5 * MS))
        .ratePerSecond(10)
        .durationNanos(S)
        .backupAfterNanos(20 * MS)
        .build();
    Result r = new Simulator(s).run(Algorithm.ROUND_ROBIN);
    // Round robin alternates: a request that went to the 50 ms backend sends its backup to the
    // 5 ms one at 20 ms and is answered at 25 ms; one that went to the fast one needs no backup.
    assertThat(r.requests()).isEqualTo(10);
    assertThat(r.successes()).isEqualTo(10);
    assertThat(r.maxMillis()).isEqualTo(25.0);
    assertThat(r.attempts()).isBetween(10L, 20L);
    long backups = r.attempts() - r.requests();
    assertThat(r.histogram().getCountAtValue(25_000)).isEqualTo(backups);
    assertThat(r.histogram().getCountAtValue(5_000)).isEqualTo(10 - backups);
  }

  @Test
  void sameSeedGivesTheSameOutputAndAnotherSeedDoesNot() {
    Scenario a = Scenarios.linkerd(7).toBuilder().durationNanos(20 * S).poisson(true).build();
    List<Algorithm> all = List.of(Algorithm.values());
    String first = Report.json(a.describe(), new Simulator(a).run(all));
    String second = Report.json(a.describe(), new Simulator(a).run(all));
    assertThat(second).isEqualTo(first);
    Scenario b = a.toBuilder().seed(8).build();
    String other = Report.json(a.describe(), new Simulator(b).run(all));
    assertThat(other).isNotEqualTo(first);
  }

  @Test
  void linkerdScenarioMeetsThePublishedFigures() {
    List<Result> results = new Simulator(Scenarios.named("linkerd")).run(Simulate.DEFAULT_BALANCERS);
    assertThat(results).extracting(Result::balancer)
        .containsExactly("round_robin", "least_loaded", "p2c_peak_ewma");
    assertThat(results).allSatisfy(r -> assertThat(r.requests()).isEqualTo(60_000));
    assertThat(results.get(0).successRate()).isBetween(0.945, 0.955);
    assertThat(results.get(1).successRate()).isGreaterThanOrEqualTo(0.99);
    assertThat(results.get(2).successRate()).isGreaterThanOrEqualTo(0.999);
    // Round robin sends 1/11 of the traffic to the slow backend whatever happens.
    long[] picks = results.get(0).picksPerBackend();
    assertThat(picks[0]).isBetween(60_000L / 11 - 1, 60_000L / 11 + 1);
    // Load-aware balancers send it far less.
    assertThat(results.get(2).picksPerBackend()[0]).isLessThan(picks[0] / 2);
  }

  @Test
  void lateAnswersTellPeakEwmaTheSlowBackendsRealLatency() {
    // The client gives up at 1 s either way; what differs is what the balancer hears: the real
    // 2 s when the late answer comes (lb-netty's default), or a 1 s failure at the deadline.
    Scenario feed = Scenarios.named("linkerd-deadline");
    Scenario drop = feed.toBuilder().lateAnswers(false).build();
    assertThat(feed.describe()).contains("(enforced)");
    assertThat(drop.describe()).contains("(enforced, late answers dropped)");
    Result fed = new Simulator(feed).run(Algorithm.P2C_PEAK_EWMA);
    Result dropped = new Simulator(drop).run(Algorithm.P2C_PEAK_EWMA);
    Result measured = new Simulator(Scenarios.named("linkerd")).run(Algorithm.P2C_PEAK_EWMA);
    assertThat(fed.successRate()).isGreaterThanOrEqualTo(0.999);
    // A 1 s failure at the deadline is a smaller peak than the real 2 s, but the failure
    // penalty raises it further: the dropped answers cost nothing here.
    assertThat(fed.successes()).isGreaterThanOrEqualTo(dropped.successes());
    assertThat(dropped.successRate()).isGreaterThanOrEqualTo(0.999);
    // The balancer hears the same latencies as in the measured experiment, and the late ones
    // as failures, which raise the slow backend's estimate further: at least as good.
    assertThat(fed.successes()).isGreaterThanOrEqualTo(measured.successes());
    assertThat(fed.maxMillis()).isEqualTo(1000.0); // nobody waits past the deadline
  }

  @Test
  void scenarioChecksItsArguments() {
    assertThatThrownBy(() -> Scenario.builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("backends: 0 (expected: > 0)");
    assertThatThrownBy(() -> oneBackend(MS).slowWindow(SlowWindow.parse("1:1s:2s:2s")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slow window backend: 1 (expected: < 1");
    assertThatThrownBy(() -> oneBackend(MS).ratePerSecond(0).build())
        .hasMessage("rate: 0.0 (expected: > 0)");
    assertThatThrownBy(() -> Scenarios.named("nope"))
        .hasMessageContaining("scenario: nope (expected: one of [linkerd, linkerd-deadline, scale-out, fail-fast])");
  }

  @Test
  void aFailingWindowFailsItsRequestsAndFeedsFailuresToTheBalancer() {
    Scenario s = oneBackend(20 * MS)
        .slowWindow(new SlowWindow(0, 500 * MS, S, LatencyDistribution.constant(MS), true))
        .build();
    Result r = new Simulator(s).run(Algorithm.ROUND_ROBIN);
    // The 50 requests from 500 ms on are answered with an error in 1 ms.
    assertThat(r.requests()).isEqualTo(100);
    assertThat(r.successes()).isEqualTo(50);
    assertThat(r.percentileMillis(50)).isEqualTo(1.0);
    assertThat(r.maxMillis()).isEqualTo(20.0);
  }

  @Test
  void scaleOutAddsColdBackendsAndMeasuresFromItsStart() {
    // Two backends of 20 ms, then two more at 500 ms, 10x slower at first, normal after 1 s;
    // a timeout of 100 ms; round robin over four from 500 ms: the new ones' answers (200 ms
    // falling to 20 ms) time out until the factor drops to 5, 556 ms after they join.
    Scenario s = Scenario.builder().name("scale")
        .backends(4, LatencyDistribution.constant(20 * MS))
        .scaleOut(new ScaleOut(2, 500 * MS, 10, S))
        .ratePerSecond(100).durationNanos(2 * S).timeoutNanos(100 * MS)
        .measureFromNanos(500 * MS).build();
    Result r = new Simulator(s).run(Algorithm.ROUND_ROBIN);
    assertThat(r.steadyRequests()).isEqualTo(50);
    assertThat(r.steadySuccessRate()).isEqualTo(1.0);
    assertThat(r.requests()).isEqualTo(150);
    assertThat(r.picksPerBackend()).containsExactly(38, 38, 37, 37);
    // Half of the 56 requests in the 556 ms after the join reach a cold backend and fail.
    assertThat(r.requests() - r.successes()).isEqualTo(28);
  }

  @Test
  void apertureScenarioGivesTwelveConnectionsEvenLoadAndLittleChurn() {
    ApertureSimulation.Report r = ApertureSimulation.run(1, 100, 100, 500);
    assertThat(r.minConnections()).isEqualTo(12);
    assertThat(r.maxConnections()).isEqualTo(12);
    assertThat(r.minLoad()).isGreaterThan(0.8);
    assertThat(r.maxLoad()).isLessThan(1.2);
    assertThat(r.opened() + r.closed()).isLessThanOrEqualTo(1.2);
  }
}

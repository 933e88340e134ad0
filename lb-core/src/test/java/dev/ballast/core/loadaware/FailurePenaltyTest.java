package dev.ballast.core.loadaware;

import static dev.ballast.core.Fixtures.endpoints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Node;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Failure-aware peak EWMA: a failure sets the estimate to max(latency, m x decayed estimate),
 * m = 1 + (penalty - 1) x elapsed / (elapsed + latency), so a backend failing in 1 ms never looks
 * like the fastest.
 */
class FailurePenaltyTest {

  private static final long MS = 1_000_000L;

  private final ManualTicker ticker = new ManualTicker();

  private Balancer<Integer> balancer(double penalty, int... weights) {
    BalancerConfig c = BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(11))
        .failurePenalty(penalty).build();
    Balancer<Integer> b = Algorithm.P2C_PEAK_EWMA.create(c);
    List<Endpoint> es = endpoints(weights);
    b.update(es, es::indexOf);
    return b;
  }

  private static void finish(Node<Integer> n, long latency, boolean success) {
    n.start();
    n.complete(latency, success);
  }

  @Test
  void aFailureAfterAQuietSpellDoublesTheDecayedEstimate() {
    Node<Integer> n = balancer(2.0, 1).nodes().get(0);
    finish(n, 100 * MS, true); // a peak: 100 ms
    ticker.advanceMillis(10_000); // one tau later: decayed to 100 ms / e
    finish(n, 1 * MS, false);
    double m = 1 + 10_000.0 / (10_000 + 1); // elapsed 10 s, latency 1 ms
    assertThat(n.rttEstimateNanos()).isCloseTo(100 * MS * Math.exp(-1) * m, within(1.0));
    assertThat(n.rttEstimateNanos()).isGreaterThan(1.99 * 100 * MS * Math.exp(-1));
  }

  @Test
  void aSlowFailureCountsAtLeastItsLatency() {
    Node<Integer> n = balancer(2.0, 1).nodes().get(0);
    finish(n, 20 * MS, true);
    ticker.advanceMillis(1);
    finish(n, 1000 * MS, false); // a timeout after 1 s
    assertThat(n.rttEstimateNanos()).isEqualTo(1000.0 * MS);
  }

  @Test
  void aBurstOfFailuresInFlightTogetherCompoundsSlowly() {
    Node<Integer> n = balancer(2.0, 1).nodes().get(0);
    finish(n, 100 * MS, true);
    for (int i = 0; i < 100; i++) {
      ticker.advanceNanos(10_000); // 100 failures of 100 ms calls within 1 ms
      finish(n, 100 * MS, false);
    }
    // About e^(1 ms / 100 ms), not 2^100.
    assertThat(n.rttEstimateNanos()).isBetween(100.0 * MS, 1.02 * 100 * MS);
  }

  @Test
  void aBackendFailingFastGetsAtMostTwoPercentWhereLatencyAloneGivesItTheMost() {
    // Ten backends answer in 20 ms; backend 0 answers every call with an error in 1 ms. One call
    // a millisecond, each completed before the next. Fed as plain latencies (a failure counted
    // as a success, which is what a latency-only EWMA sees), backend 0 looks the fastest.
    for (boolean failureAware : new boolean[] {true, false}) {
      Balancer<Integer> b = balancer(2.0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
      for (Node<Integer> n : b.nodes()) {
        finish(n, 20 * MS, true);
      }
      int failing = 0;
      for (int i = 0; i < 20_000; i++) {
        ticker.advanceMillis(1);
        Node<Integer> n = b.pick();
        boolean fails = n.value() == 0;
        failing += fails ? 1 : 0;
        n.complete(fails ? MS : 20 * MS, !(fails && failureAware));
      }
      if (failureAware) {
        assertThat(failing).isLessThanOrEqualTo(400);
      } else {
        assertThat(failing).isGreaterThan(3000); // about 2 / 10 of the picks
      }
    }
  }

  @Test
  void theEstimateIsCappedSoItAlwaysDecaysBack() {
    Node<Integer> n = balancer(1000.0, 1).nodes().get(0);
    for (int i = 0; i < 20; i++) {
      ticker.advanceMillis(60_000);
      finish(n, 1 * MS, false);
    }
    assertThat(n.rttEstimateNanos()).isEqualTo(PeakEwma.PENALTY);
    ticker.advanceMillis(3_600_000); // an hour: 360 tau
    assertThat(n.rttEstimateNanos()).isLessThan(1.0);
  }

  @Test
  void penaltyOneCountsAFailureAsItsLatencyWithoutLoweringTheEstimate() {
    Node<Integer> n = balancer(1.0, 1).nodes().get(0);
    finish(n, 100 * MS, true);
    ticker.advanceMillis(1);
    finish(n, 1 * MS, false);
    assertThat(n.rttEstimateNanos()).isCloseTo(100 * MS * Math.exp(-1e-4), within(1.0));
    assertThatThrownBy(() -> BalancerConfig.builder().failurePenalty(0.5))
        .hasMessage("failurePenalty: 0.5 (expected: >= 1, 1 for off)");
    assertThat(BalancerConfig.defaults().failurePenalty()).isEqualTo(2.0);
  }
}

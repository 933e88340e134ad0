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
import dev.ballast.core.config.OptionException;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.loadaware.ReportedLoad.ReportNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Weighted round robin from load reports, as gRFC A58 defines it, on a VNSWRR ring. */
class ReportedWeightsTest {

  private final ManualTicker ticker = new ManualTicker();

  private WeightedRoundRobin<Integer> wrr(int n, WeightedRoundRobinConfig weights) {
    WeightedRoundRobin<Integer> b = new WeightedRoundRobin<>(BalancerConfig.builder()
        .ticker(ticker).random(new SplittableRandom(1)).build(), weights);
    List<Endpoint> es = ones(n);
    b.update(es, es::indexOf);
    return b;
  }

  private static List<Endpoint> ones(int n) {
    int[] w = new int[n];
    java.util.Arrays.fill(w, 1);
    return endpoints(w);
  }

  /** Each node reports utilization u[i] at 100 qps, no errors. */
  private static void report(Balancer<Integer> b, double... u) {
    for (Node<Integer> n : b.nodes()) {
      if (u[n.value()] > 0) {
        n.reportLoad(LoadReport.of(u[n.value()], 100, 0));
      }
    }
  }

  /** Picks {@code picks} times and returns the picks per node. */
  private static int[] shares(Balancer<Integer> b, int picks) {
    int[] count = new int[b.nodes().size()];
    for (int i = 0; i < picks; i++) {
      Node<Integer> n = b.pick();
      count[n.value()]++;
      n.cancel();
    }
    return count;
  }

  @Test
  void a58sWeightIsQpsOverUtilizationPlusPenalizedErrors() {
    assertThat(LoadReport.of(0.5, 100, 10).weight(1.0)).isCloseTo(100 / 0.6, within(1e-9));
    assertThat(LoadReport.of(0.5, 100, 10).weight(0)).isCloseTo(200, within(1e-9));
    assertThat(LoadReport.of(0.5, 100, 10).weight(2.5)).isCloseTo(100 / 0.75, within(1e-9));
    // the application's utilization wins over the CPU's when given
    assertThat(LoadReport.of(0.9, 0.25, 100, 0, Map.of()).weight(1)).isCloseTo(400, within(1e-9));
    // no utilization or no qps: no weight (A58 ignores the report)
    assertThat(LoadReport.of(0, 100, 0).weight(1)).isZero();
    assertThat(LoadReport.of(0.5, 0, 0).weight(1)).isZero();
  }

  @Test
  void weightsCountAfterTheBlackoutAndGiveExactSharesOnTheRing() {
    WeightedRoundRobin<Integer> b = wrr(4, WeightedRoundRobinConfig.defaults());
    report(b, 0.8, 0.8, 0.4, 0.2); // weights 125 : 125 : 250 : 500
    ticker.advanceMillis(9_000);
    b.updateWeights();
    assertThat(shares(b, 800)).as("in the blackout: round robin").containsExactly(200, 200, 200, 200);
    report(b, 0.8, 0.8, 0.4, 0.2);
    ticker.advanceMillis(1_000); // 10 s since the first report
    b.updateWeights();
    assertThat(shares(b, 800)).containsExactly(100, 100, 200, 400);
  }

  @Test
  void picksRecomputeTheWeightsOncePerUpdatePeriod() {
    WeightedRoundRobin<Integer> b = wrr(2, WeightedRoundRobinConfig.builder()
        .blackoutPeriod(Duration.ZERO).build());
    report(b, 0.5, 0.5);
    b.updateWeights();
    assertThat(shares(b, 3200)).containsExactly(1600, 1600);
    report(b, 0.25, 0.75); // weights 400 : 133, i.e. 3 : 1
    ticker.advanceMillis(999);
    assertThat(shares(b, 3200)).as("before the period ends").containsExactly(1600, 1600);
    ticker.advanceMillis(1);
    int[] s = shares(b, 3232); // the first 32 picks may still be on the old ring
    assertThat(s[0] - 2400).isBetween(0, 32);
    assertThat(b.pick().value()).isNotNull();
  }

  @Test
  void nodesWithoutAWeightGetTheMean() {
    WeightedRoundRobin<Integer> b = wrr(3, WeightedRoundRobinConfig.builder()
        .blackoutPeriod(Duration.ZERO).build());
    report(b, 0.75, 0.25, 0); // 133 : 400 : none -> mean 266.7
    b.updateWeights();
    int[] s = shares(b, 6000);
    assertThat(s[0]).isCloseTo(1000, within(10));
    assertThat(s[1]).isCloseTo(3000, within(10));
    assertThat(s[2]).isCloseTo(2000, within(10));
  }

  @Test
  void weightsAreHeldWithinATenthAndTenTimesTheMean() {
    int[] out = new int[3];
    // mean 340; 1000 is capped at 3400, i.e. kept; 10 is raised to 34
    assertThat(ReportSnapshot.scaled(new double[] {10, 10, 1000}, 1000, out)).isTrue();
    assertThat(out).containsExactly(34, 34, 1000);
    // mean 10,000.4 of 5: 50,000 stays; 0.5 is raised to a tenth of the mean
    assertThat(ReportSnapshot.scaled(new double[] {50_000, 0.5, 0.5, 0.5, 0.5}, 1000, out = new int[5]))
        .isTrue();
    assertThat(out[1]).isEqualTo((int) Math.ceil(1000 / 50_000.0 * 10_000.4 * 0.1));
    // one weight only: round robin
    assertThat(ReportSnapshot.scaled(new double[] {0, 5, 0}, 1000, new int[3])).isFalse();
  }

  /**
   * A report of enormous qps over a tiny utilization (a broken or hostile server; the fuzz
   * target found one) weighs at most {@link LoadReport#MAX_WEIGHT}: it is capped like any large
   * weight instead of making the others' weights 0.
   */
  @Test
  void anAbsurdReportCannotZeroTheOtherWeights() {
    double w = LoadReport.of(0, 1.4e-76, 3.8e255, 0, java.util.Map.of()).weight(1);
    assertThat(w).isEqualTo(LoadReport.MAX_WEIGHT);
    int[] out = new int[3];
    assertThat(ReportSnapshot.scaled(new double[] {w, w, 100}, 1000, out)).isTrue();
    assertThat(out).containsExactly(1000, 1000, 67); // 100 raised to a tenth of the mean
  }

  /**
   * Envoy's metricNamesForComputingUtilization: without an application utilization, the largest
   * of the named metrics is the utilization; without any of them, the CPU's.
   */
  @Test
  void namedMetricsGiveTheUtilizationWhenTheApplicationGivesNone() {
    WeightedRoundRobinConfig c = WeightedRoundRobinConfig.builder()
        .metricNamesForComputingUtilization(List.of("named_metrics.queue", "utilization.gpu"))
        .build();
    assertThat(c.utilization(LoadReport.of(0.9, 0, 100, 0, Map.of("queue", 0.2, "gpu", 0.4))))
        .isEqualTo(0.4);
    assertThat(c.utilization(LoadReport.of(0.9, 0.3, 100, 0, Map.of("gpu", 0.4))))
        .isEqualTo(0.3); // the application's own wins
    assertThat(c.utilization(LoadReport.of(0.9, 0, 100, 0, Map.of("disk", 0.4))))
        .isEqualTo(0.9); // none of them: the CPU's
    assertThat(c.utilization(LoadReport.of(0.9, 0, 100, 0, Map.of("queue", 0.0))))
        .isEqualTo(0.9); // none above 0: the CPU's, as Envoy
    assertThat(WeightedRoundRobinConfig.defaults()
        .utilization(LoadReport.of(0.9, 0, 100, 0, Map.of("queue", 0.2)))).isEqualTo(0.9);

    // two servers at the same CPU and qps, one with twice the queue: half its weight
    WeightedRoundRobin<Integer> b = wrr(2, c.toBuilder().blackoutPeriod(Duration.ZERO).build());
    for (Node<Integer> n : b.nodes()) {
      n.reportLoad(LoadReport.of(0.5, 0, 100, 0, Map.of("queue", n.value() == 0 ? 0.2 : 0.4)));
    }
    b.updateWeights();
    int[] s = shares(b, 3000);
    assertThat(s[0]).isCloseTo(2000, within(10));
    assertThat(s[1]).isCloseTo(1000, within(10));
  }

  @Test
  void aMetricNameOfAnotherFormIsRefusedNamingIt() {
    assertThatThrownBy(() -> WeightedRoundRobinConfig.builder()
        .metricNamesForComputingUtilization(List.of("named_metrics.queue", "request_cost.db")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metricNamesForComputingUtilization[1]: \"request_cost.db\""
            + " (expected: named_metrics.NAME or utilization.NAME)");
    assertThatThrownBy(() -> WeightedRoundRobinConfig.builder()
        .metricNamesForComputingUtilization(List.of("named_metrics.")))
        .hasMessageContaining("[0]: \"named_metrics.\"");
    assertThatThrownBy(() -> LoadOptions.WEIGHTED_ROUND_ROBIN.decode(
        Map.of("metricNamesForComputingUtilization", List.of("queue"))))
        .isInstanceOf(OptionException.class)
        .hasMessageContaining("metricNamesForComputingUtilization");
  }

  @Test
  void aWeightExpiresWithoutReportsAndItsBlackoutStartsAgain() {
    WeightedRoundRobin<Integer> b = wrr(2, WeightedRoundRobinConfig.defaults());
    report(b, 0.25, 0.75);
    ticker.advanceMillis(10_000);
    b.updateWeights();
    assertThat(shares(b, 400)).containsExactly(300, 100);
    ticker.advanceMillis(180_000); // 3 min without a report
    b.updateWeights();
    assertThat(shares(b, 400)).containsExactly(200, 200);
    report(b, 0.25, 0.75); // back, but in a new blackout
    ticker.advanceMillis(5_000);
    b.updateWeights();
    assertThat(shares(b, 400)).containsExactly(200, 200);
    report(b, 0.25, 0.75);
    ticker.advanceMillis(5_000);
    b.updateWeights();
    assertThat(shares(b, 400)).containsExactly(300, 100);
  }

  @Test
  void badValuesAreIgnoredAndCountedNeverFatal() {
    LoadReport r = LoadReport.of(Double.NaN, 100.5, Double.POSITIVE_INFINITY, -2,
        Map.of("queue", -1.0, "mem", 0.5));
    assertThat(r.rejected()).isEqualTo(5);
    assertThat(r.cpuUtilization()).isZero();
    assertThat(r.applicationUtilization()).isZero();
    assertThat(r.qps()).isZero();
    assertThat(r.eps()).isZero();
    assertThat(r.namedMetrics()).containsExactly(Map.entry("mem", 0.5));
    // past its soft limits a server may report more than 100% (A51): kept, and weighed down
    assertThat(LoadReport.of(1.5, 150, 0).cpuUtilization()).isEqualTo(1.5);
    assertThat(LoadReport.of(1.5, 150, 0).weight(1.0)).isEqualTo(100);
    WeightedRoundRobin<Integer> b = wrr(2, WeightedRoundRobinConfig.builder()
        .blackoutPeriod(Duration.ZERO).build());
    report(b, 0.25, 0.75);
    for (Node<Integer> n : b.nodes()) {
      n.reportLoad(r); // says nothing usable: the weights stay
      n.reportLoad(LoadReport.of(-0.5, 100, 0)); // a negative utilization
    }
    b.updateWeights();
    assertThat(b.rejectedValues()).isEqualTo(12);
    assertThat(b.unusableReports()).isEqualTo(4);
    assertThat(shares(b, 400)).containsExactly(300, 100);
  }

  @Test
  void otherBalancersIgnoreReports() {
    Balancer<Integer> b = Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults());
    List<Endpoint> es = ones(2);
    b.update(es, es::indexOf);
    b.nodes().get(0).reportLoad(LoadReport.of(Double.NaN, 1, 1));
    assertThat(b.pick()).isNotNull();
  }

  @Test
  void optionsHaveGrpcsNamesAndDefaults() {
    WeightedRoundRobinConfig c = LoadOptions.WEIGHTED_ROUND_ROBIN.decode(Map.of(
        "blackoutPeriod", "0s", "weightExpirationPeriod", "60s", "oobReportingPeriod", "5s",
        "enableOobLoadReport", true, "weightUpdatePeriod", "0.05s",
        "errorUtilizationPenalty", 2.5));
    assertThat(c.blackoutPeriod()).isZero();
    assertThat(c.weightExpirationPeriod()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.oobReportingPeriod()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.enableOobLoadReport()).isTrue();
    assertThat(c.weightUpdatePeriod()).as("raised to gRPC's floor").isEqualTo(Duration.ofMillis(100));
    assertThat(c.errorUtilizationPenalty()).isEqualTo(2.5);
    WeightedRoundRobinConfig d = LoadOptions.WEIGHTED_ROUND_ROBIN.decode(Map.of());
    assertThat(d).isEqualTo(WeightedRoundRobinConfig.defaults());
    assertThat(d.blackoutPeriod()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.weightExpirationPeriod()).isEqualTo(Duration.ofMinutes(3));
    assertThat(d.oobReportingPeriod()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.enableOobLoadReport()).isFalse();
    assertThat(d.weightUpdatePeriod()).isEqualTo(Duration.ofSeconds(1));
    assertThat(d.errorUtilizationPenalty()).isEqualTo(1.0);
    assertThat(LoadOptions.WEIGHTED_ROUND_ROBIN.decode(LoadOptions.WEIGHTED_ROUND_ROBIN.encode(c)))
        .isEqualTo(c);
    assertThatThrownBy(() -> LoadOptions.WEIGHTED_ROUND_ROBIN.decode(
        Map.of("errorUtilizationPenalty", -1)))
        .isInstanceOf(OptionException.class).hasMessageContaining("errorUtilizationPenalty");
    assertThatThrownBy(() -> LoadOptions.WEIGHTED_ROUND_ROBIN.decode(Map.of("blackoutPeriod", "-1s")))
        .isInstanceOf(OptionException.class).hasMessageContaining("blackoutPeriod");
    assertThatThrownBy(() -> LoadOptions.WEIGHTED_ROUND_ROBIN.decode(Map.of("blackoutPeriode", "1s")))
        .isInstanceOf(OptionException.class).hasMessageContaining("blackoutPeriod");
  }

  @Test
  void p2cTakesFewerRequestsInFlightPerUnitOfReportedCapacity() {
    P2cUtilization<Integer> b = new P2cUtilization<>(BalancerConfig.builder().ticker(ticker)
        .random(new SplittableRandom(3)).build());
    List<Endpoint> es = ones(2);
    b.update(es, es::indexOf);
    Node<Integer> small = b.nodes().get(0);
    Node<Integer> large = b.nodes().get(1);
    small.reportLoad(LoadReport.of(0.5, 50, 0)); // capacity 100
    large.reportLoad(LoadReport.of(0.25, 100, 0)); // capacity 400
    // costs (pending + 0.5) / capacity: the large one until it holds two, then the small one
    StringBuilder order = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      order.append(b.pick() == large ? 'L' : 'S');
    }
    // L: 0.5/400 < 0.5/100; L: 1.5/400 < 0.5/100; S: 2.5/400 > 0.5/100; L: 2.5/400 < 1.5/100;
    // L: 3.5/400 < 1.5/100; L: 4.5/400 < 1.5/100
    assertThat(order).hasToString("LLSLLL");
    assertThat(small.pending()).isEqualTo(1);
    assertThat(large.pending()).isEqualTo(5);
  }

  @Test
  void p2cMovesCallsFromAServerReportingMoreThanTheMeanUtilization() {
    P2cUtilization<Integer> b = new P2cUtilization<>(BalancerConfig.builder().ticker(ticker)
        .random(new SplittableRandom(3)).build());
    List<Endpoint> es = ones(2);
    b.update(es, es::indexOf);
    Node<Integer> hot = b.nodes().get(0);
    Node<Integer> cool = b.nodes().get(1);
    // the same capacity, 200 qps at full utilization, but other work keeps the first busier
    hot.reportLoad(LoadReport.of(0.8, 160, 0));
    cool.reportLoad(LoadReport.of(0.4, 80, 0));
    int[] before = shares(b, 100);
    assertThat(before[0]).as("equal costs: latency, alike, decides").isPositive();
    ticker.advanceMillis(1_000); // one update period: each correction moves by exp(0.25 x error)
    shares(b, 32); // one pick in 32 reads the clock
    assertThat(ReportNode.of(hot).correction).isCloseTo(Math.exp(-0.25 / 3), within(1e-12));
    assertThat(ReportNode.of(cool).correction).isCloseTo(Math.exp(0.25 / 3), within(1e-12));
    assertThat(shares(b, 100)).as("idle: the cooler server's cost is 1.18 times lower")
        .containsExactly(0, 100);
    ticker.advanceMillis(1_000); // no new report: nothing to correct with
    shares(b, 32);
    assertThat(ReportNode.of(hot).correction).isCloseTo(Math.exp(-0.25 / 3), within(1e-12));
    hot.reportLoad(LoadReport.of(0.6, 120, 0));
    cool.reportLoad(LoadReport.of(0.6, 120, 0));
    ticker.advanceMillis(1_000); // at the mean: the corrections stay
    shares(b, 32);
    assertThat(ReportNode.of(cool).correction).isCloseTo(Math.exp(0.25 / 3), within(1e-12));
  }

  @Test
  void p2cCorrectionsKeepAGeometricMeanOfOneWhenAnErrorIsClamped() {
    P2cUtilization<Integer> b = new P2cUtilization<>(BalancerConfig.builder().ticker(ticker)
        .random(new SplittableRandom(3)).build());
    List<Endpoint> es = ones(3);
    b.update(es, es::indexOf);
    List<Node<Integer>> n = b.nodes();
    for (int period = 0; period < 3; period++) {
      // 3.0 is past twice the mean: its error is clamped at -1, the others' are not, so the
      // steps do not sum to zero
      n.get(0).reportLoad(LoadReport.of(3.0, 300, 0));
      n.get(1).reportLoad(LoadReport.of(0.1, 10, 0));
      n.get(2).reportLoad(LoadReport.of(0.1, 10, 0));
      ticker.advanceMillis(1_000);
      shares(b, 32);
    }
    double product = n.stream().mapToDouble(x -> ReportNode.of(x).correction).reduce(1, (x, y) -> x * y);
    assertThat(product).as("no drift of all corrections together").isCloseTo(1, within(1e-9));
    assertThat(ReportNode.of(n.get(0)).correction).isLessThan(ReportNode.of(n.get(1)).correction);
  }

  @Test
  void p2cWithoutReportsOrWithStaleOnesFallsBackToLatency() {
    P2cUtilization<Integer> b = new P2cUtilization<>(BalancerConfig.builder().ticker(ticker)
        .random(new SplittableRandom(3)).build());
    List<Endpoint> es = ones(2);
    b.update(es, es::indexOf);
    Node<Integer> a = b.nodes().get(0);
    Node<Integer> c = b.nodes().get(1);
    a.complete(1_000_000, true);
    c.complete(3_000_000, true); // slower, within what reports may outweigh (BOUND)
    assertThat(shares(b, 100)).as("no reports: the faster").containsExactly(100, 0);
    c.reportLoad(LoadReport.of(0.1, 100, 0)); // only one side reported: latency still
    assertThat(shares(b, 100)).containsExactly(100, 0);
    a.reportLoad(LoadReport.of(0.9, 10, 0)); // capacity 11 against 1000: c wins
    assertThat(shares(b, 100)).containsExactly(0, 100);
    ticker.advanceMillis(180_000); // c's report is now 3 min older than a's new one
    a.reportLoad(LoadReport.of(0.9, 10, 0));
    assertThat(shares(b, 100)).as("a stale report counts as none").containsExactly(100, 0);
    assertThat(b.rejectedValues()).isZero();
  }
}

package dev.ballast.core.roundrobin;

import static dev.ballast.core.Fixtures.endpoints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Fixtures;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.engine.EngineTesting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Slow start (Envoy's formula, in tenths): endpoints that join after the first update ramp from
 * the floor to their whole weight over the window, for every algorithm but those that pick by
 * key; the first set and label subsets' nodes do not ramp; picks read the clock once in 32
 * during a ramp and never otherwise.
 */
class SlowStartTest {

  private static final Duration WINDOW = Duration.ofSeconds(100);

  private final ManualTicker ticker = new ManualTicker();

  private BalancerConfig config(Duration window, double aggression, double floor) {
    return BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(3))
        .slowStart(window, aggression, floor).build();
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE,
      names = {"RING_HASH", "KETAMA", "MAGLEV", "WEIGHTED_ROUND_ROBIN", "P2C_UTILIZATION"})
  void aTenthOfAPercentFloorGivesATenthOfAPercent(Algorithm algorithm) {
    // One endpoint from the start, one joining at a 0.1% floor; every request is held open, so
    // the P2C algorithms keep pending / (weight x factor) even. Over 100,100 picks the joining
    // one gets 100, a thousandth of the other's 100,000: exactly for the round robins (100 turns
    // of a ring of 1,001), within one for P2C, within sampling error for weighted random.
    Balancer<Integer> b = algorithm.create(config(WINDOW, 1.0, 0.1));
    List<Endpoint> all = endpoints(1, 1);
    b.update(all.subList(0, 1), all::indexOf);
    b.update(all, all::indexOf);
    List<Node<Integer>> held = new ArrayList<>();
    int joined = 0;
    for (int i = 0; i < 100_100; i++) {
      Node<Integer> n = b.pick();
      joined += n.value();
      held.add(n);
    }
    held.forEach(Node::cancel);
    int tolerance = switch (algorithm) {
      case ROUND_ROBIN, SWRR, VNSWRR -> 0;
      case WEIGHTED_RANDOM -> 25; // 100 expected, standard deviation 10
      default -> 1;
    };
    assertThat(joined).as(algorithm.id()).isBetween(100 - tolerance, 100 + tolerance);
  }

  @Test
  void aFloorTooFineForAWeightSumIsRoundedUpRatherThanDropped() {
    // Two endpoints of weight 3,000; the joining one at a millionth of a percent, a level of 1
    // against 1,000,000: the ramped sum (3 x 10^9) passes int, so the floor is rounded up to
    // ten millionths (3 x 10^8 fits) rather than the ramp being skipped, which would give the
    // joining endpoint half of the picks at once.
    Balancer<Integer> b = Algorithm.WEIGHTED_RANDOM.create(config(WINDOW, 1.0, 1e-4));
    List<Endpoint> all = endpoints(3000, 3000);
    b.update(all.subList(0, 1), all::indexOf);
    b.update(all, all::indexOf);
    assertThat(share(b, 1, 10_000)).isZero();
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, names = {"ROUND_ROBIN", "VNSWRR"})
  void aFineFloorGetsARingOfItsOwnInsteadOfAHugeRing(Algorithm algorithm) {
    // 900 endpoints of weights 1-10, 100 joining at 0.1%: one ring would hold 900,100 (round
    // robin) or about 5 million (VNSWRR) virtual nodes. The joining ones get a ring of their own
    // and, interleaved evenly, their weighted share of any run of picks within one pick.
    SplittableRandom random = new SplittableRandom(42);
    int[] weights = new int[1000];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = 1 + random.nextInt(10);
    }
    Balancer<Integer> b = algorithm.create(config(WINDOW, 1.0, 0.1));
    List<Endpoint> all = endpoints(weights);
    b.update(all.subList(0, 900), all::indexOf);
    b.update(all, all::indexOf);
    assertThat(EngineTesting.current(b)).isInstanceOf(RampRing.Interleaved.class);
    double total = 0;
    double joining = 0;
    for (int i = 0; i < weights.length; i++) {
      double w = algorithm == Algorithm.ROUND_ROBIN ? 1 : weights[i]; // round robin: no weights
      total += i < 900 ? w * 1000 : w;
      joining += i < 900 ? 0 : w;
    }
    int picks = 100_000;
    int hits = 0;
    for (int i = 0; i < picks; i++) {
      hits += Fixtures.pickOnce(b) >= 900 ? 1 : 0;
    }
    double expected = picks * joining / total; // 11.34 (VNSWRR) or 11.11 (round robin)
    assertThat(hits).isBetween((int) Math.floor(expected), (int) Math.ceil(expected));
  }

  @Test
  void badSettingsAreRejectedNamingThem() {
    BalancerConfig.Builder b = BalancerConfig.builder();
    assertThatThrownBy(() -> b.slowStart(Duration.ofSeconds(-1)))
        .hasMessage("slowStartWindow: PT-1S (expected: >= 0, 0 for off)");
    assertThatThrownBy(() -> b.slowStart(WINDOW, 0, 10))
        .hasMessage("slowStartAggression: 0.0 (expected: > 0)");
    assertThatThrownBy(() -> b.slowStart(WINDOW, Double.NaN, 10))
        .hasMessage("slowStartAggression: NaN (expected: > 0)");
    assertThatThrownBy(() -> b.slowStart(WINDOW, 1, 0))
        .hasMessage("slowStartMinWeightPercent: 0.0 (expected: > 0 and <= 100)");
    assertThatThrownBy(() -> b.slowStart(WINDOW, 1, -0.5))
        .hasMessage("slowStartMinWeightPercent: -0.5 (expected: > 0 and <= 100)");
    assertThatThrownBy(() -> b.slowStart(WINDOW, 1, 100.01))
        .hasMessage("slowStartMinWeightPercent: 100.01 (expected: > 0 and <= 100)");
    assertThatThrownBy(() -> b.slowStart(WINDOW, 1, Double.NaN))
        .hasMessage("slowStartMinWeightPercent: NaN (expected: > 0 and <= 100)");
    assertThat(BalancerConfig.defaults().slowStartWindow()).isZero();
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, names = {"ROUND_ROBIN", "SWRR", "VNSWRR"})
  void roundRobinsGiveAJoiningEndpointItsRampedShareExactly(Algorithm algorithm) {
    // Nine endpoints of weight 3 from the start, one of weight 3 joining: over every cycle of
    // the ring it gets weight x percent of the picks, step by step, then its whole share.
    Balancer<Integer> b = algorithm.create(config(WINDOW, 1.0, 10));
    List<Endpoint> all = endpoints(3, 3, 3, 3, 3, 3, 3, 3, 3, 3);
    b.update(all.subList(0, 9), all::indexOf);
    b.update(all, all::indexOf);
    long s = 1_000_000_000L;
    int[][] expectations = {{0, 10}, {25, 20}, {55, 50}, {99, 90}, {100, 100}, {500, 100}};
    long at = 0;
    for (int[] e : expectations) {
      ticker.advanceNanos(e[0] * s - at);
      at = e[0] * s;
      for (int i = 0; i < 32; i++) {
        Fixtures.pickOnce(b); // the step is noticed within 32 picks
      }
      int cycle = 9 * 100 + e[1]; // Σ weight x percent over the gcd 3
      int joined = 0;
      for (int i = 0; i < cycle; i++) {
        joined += Fixtures.pickOnce(b) == 9 ? 1 : 0;
      }
      assertThat(joined).as("%s at %d s", algorithm.id(), e[0]).isEqualTo(e[1]);
    }
  }

  @Test
  void weightedRandomDrawsTheRampedShare() {
    Balancer<Integer> b = Algorithm.WEIGHTED_RANDOM.create(config(WINDOW, 1.0, 10));
    List<Endpoint> all = endpoints(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    b.update(all.subList(0, 9), all::indexOf);
    b.update(all, all::indexOf);
    assertThat(share(b, 9, 100_000)).isCloseTo(0.1 / 9.1, offset(0.002));
    ticker.advanceNanos(WINDOW.toNanos());
    share(b, 9, 32);
    assertThat(share(b, 9, 100_000)).isCloseTo(0.1, offset(0.005));
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, names = {"LEAST_LOADED", "P2C_PEAK_EWMA"})
  void p2cDividesAJoiningEndpointsCostByItsFactor(Algorithm algorithm) {
    // Two endpoints; requests are held open, so pending grows and P2C (two nodes: it always
    // compares both) keeps pending / (weight x factor) even: the joining one holds a tenth as
    // many, then half as many at 50%, then as many.
    Balancer<Integer> b = algorithm.create(config(WINDOW, 1.0, 10));
    List<Endpoint> all = endpoints(1, 1);
    b.update(all.subList(0, 1), all::indexOf);
    b.update(all, all::indexOf);
    assertThat(heldPending(b, 1100)).isBetween(99, 101);
    ticker.advanceNanos(55_000_000_000L);
    assertThat(heldPending(b, 1500)).isBetween(499, 501);
    ticker.advanceNanos(45_000_000_000L);
    assertThat(heldPending(b, 2000)).isBetween(999, 1001);
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, names = {"LEAST_LOADED", "P2C_PEAK_EWMA"})
  void rampingEndpointsGetAboutTheirRampShareUnderP2c(Algorithm algorithm) {
    // Ten endpoints, ten more joining at a 1% floor, all idle. Candidates drawn by ramp percent
    // send the ramping ones their ramp share, about 1 pick in 100 (least loaded: idle costs tie
    // and the first candidate wins), or about 1 in 10,000 (peak EWMA: a ramping node's cost is
    // divided by its 1%, so it wins only against another). Drawing both candidates uniformly
    // whenever the weighted draws coincide (1 pick in 10) would add about 1 in 40 or 1 in 20.
    Balancer<Integer> b = algorithm.create(config(WINDOW, 0.5, 1));
    List<Endpoint> all = endpoints(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    b.update(all.subList(0, 10), all::indexOf);
    b.update(all, all::indexOf);
    int ramping = 0;
    for (int i = 0; i < 20_000; i++) {
      Node<Integer> n = b.pick();
      ramping += n.value() >= 10 ? 1 : 0;
      n.cancel();
    }
    assertThat(ramping).isLessThan(algorithm == Algorithm.LEAST_LOADED ? 300 : 40);
  }

  @Test
  void theRampIsNotUndoneByAnUnmeasuredEndpointsDefaultRtt() {
    // Nine endpoints measured at 100 ms; a joining one sits at the 30 ms default RTT, lower than
    // a cold instance's real latency. Without slow start P2C peak EWMA sends it most requests;
    // with it, its cost is divided by 0.1 (30 ms / 0.1 = 300 ms > 100 ms) and it gets few.
    for (boolean slowStart : new boolean[] {false, true}) {
      BalancerConfig c = config(slowStart ? WINDOW : Duration.ZERO, 1.0, 10);
      Balancer<Integer> b = Algorithm.P2C_PEAK_EWMA.create(c);
      List<Endpoint> all = endpoints(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
      b.update(all.subList(0, 9), all::indexOf);
      for (Node<Integer> n : b.nodes()) {
        n.start();
        n.complete(100_000_000L, true);
      }
      b.update(all, all::indexOf);
      int joined = 0;
      for (int i = 0; i < 1000; i++) {
        Node<Integer> n = b.pick();
        joined += n.value() == 9 ? 1 : 0;
        n.cancel(); // picks only: the estimates stay where they are
      }
      if (slowStart) {
        assertThat(joined).isZero();
      } else {
        assertThat(joined).isGreaterThan(150); // it wins every draw it is in: about 2/10
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, names = {"RING_HASH", "KETAMA", "MAGLEV"})
  void balancersThatPickByKeyIgnoreSlowStart(Algorithm algorithm) {
    // A key keeps its endpoint: a joining endpoint takes its keys at once, as without slow start.
    List<Endpoint> all = endpoints(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    HashBalancer<Integer> ramping = (HashBalancer<Integer>) algorithm.<Integer>create(
        config(WINDOW, 1.0, 10));
    HashBalancer<Integer> plain = (HashBalancer<Integer>) algorithm.<Integer>create(
        BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(3)).build());
    for (HashBalancer<Integer> b : List.of(ramping, plain)) {
      b.update(all.subList(0, 9), all::indexOf);
      b.update(all, all::indexOf);
    }
    SplittableRandom hashes = new SplittableRandom(7);
    int joined = 0;
    for (int i = 0; i < 2000; i++) {
      long h = hashes.nextLong();
      int picked = ramping.pick(h).value();
      assertThat(picked).isEqualTo(plain.pick(h).value());
      joined += picked == 9 ? 1 : 0;
    }
    assertThat(joined).isGreaterThan(100); // about a tenth of the keys, from the first pick
  }

  @Test
  void onlyEndpointsJoiningAfterTheFirstSetRampAndAReturningOneRampsAgain() {
    Balancer<Integer> b = Algorithm.VNSWRR.create(config(WINDOW, 1.0, 10));
    List<Endpoint> all = endpoints(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    b.update(List.of(), all::indexOf); // an empty first update seeds nothing
    b.update(all, all::indexOf);
    assertThat(share(b, 9, 1000)).isEqualTo(0.1);
    b.update(all.subList(0, 9), all::indexOf);
    b.update(all, all::indexOf); // back after leaving: a new node, cold again
    assertThat(share(b, 9, 910)).isEqualTo(10 / 910.0);
  }

  @Test
  void picksReadTheClockOnceIn32DuringARampAndNeverOtherwise() {
    AtomicLong now = new AtomicLong(1);
    AtomicLong readings = new AtomicLong();
    Ticker counting = () -> {
      readings.incrementAndGet();
      return now.get();
    };
    for (Algorithm a : Algorithm.values()) {
      if (a.picksByKey() || a.readsReports()) {
        continue; // no ramp (balancersThatPickByKeyIgnoreSlowStart); weights from reports
        // read the clock once in 32 picks for their update period (ReportedWeightsTest)
      }
      Balancer<Integer> b = a.create(BalancerConfig.builder().ticker(counting)
          .random(new SplittableRandom(1)).slowStart(WINDOW).build());
      List<Endpoint> all = endpoints(1, 1, 1, 1);
      b.update(all.subList(0, 3), all::indexOf);
      b.update(all, all::indexOf);
      readings.set(0);
      for (int i = 0; i < 3200; i++) {
        b.pick().cancel();
      }
      assertThat(readings.get()).as(a.id() + " ramping").isEqualTo(100);
      now.addAndGet(WINDOW.toNanos()); // the ramp is over: the next check builds a steady set
      for (int i = 0; i < 32; i++) {
        b.pick().cancel();
      }
      readings.set(0);
      for (int i = 0; i < 3200; i++) {
        b.pick().cancel();
      }
      assertThat(readings.get()).as(a.id() + " steady").isZero();
    }
  }

  /** Returns a percent as a level (millionths of the weight). */
  private static int pct(double percent) {
    return (int) Math.round(percent * 1_000_000 / 100); // millionths of the weight
  }

  private static double share(Balancer<Integer> b, int value, int picks) {
    int hits = 0;
    for (int i = 0; i < picks; i++) {
      hits += Fixtures.pickOnce(b) == value ? 1 : 0;
    }
    return (double) hits / picks;
  }

  /** Picks n times holding every request open; returns the joining node's share of 1000s. */
  private static int heldPending(Balancer<Integer> b, int n) {
    for (int i = 0; i < 32; i++) {
      b.pick().cancel(); // the step is noticed within 32 picks
    }
    List<Node<Integer>> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      held.add(b.pick());
    }
    int joined = b.nodes().get(1).pending();
    for (Node<Integer> node : held) {
      node.cancel();
    }
    return joined;
  }
}

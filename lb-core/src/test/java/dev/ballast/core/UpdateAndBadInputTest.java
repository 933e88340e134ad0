package dev.ballast.core;

import static dev.ballast.core.Fixtures.balancer;
import static dev.ballast.core.Fixtures.endpoints;
import static dev.ballast.core.Fixtures.pickOnce;
import static dev.ballast.core.Fixtures.seeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Issue 2, item 7 and the update contract: state survives, bad input never corrupts it. */
class UpdateAndBadInputTest {

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void survivingNodesKeepStateAndRemovedOnesAreReturned(Algorithm algorithm) {
    Balancer<String> b = algorithm.create(seeded(1));
    AtomicInteger made = new AtomicInteger();
    b.update(Endpoint.parseList("a:1,b:1,c:1"), e -> e.host() + made.incrementAndGet());
    Node<String> a = b.nodes().get(0);
    a.start();
    a.start();
    a.setAvailability(Availability.BUSY);

    List<Node<String>> removed = b.update(
        Endpoint.parseList("c:1;weight=4,a:1;weight=2;zone=x,d:1"), e -> e.host() + made.incrementAndGet());

    assertThat(removed).extracting(Node::value).containsExactly("b2");
    assertThat(made).hasValue(4); // only d was new
    assertThat(b.nodes()).extracting(Node::value).containsExactly("c3", "a1", "d4");
    Node<String> a2 = b.nodes().get(1);
    assertThat(a2).isSameAs(a);
    assertThat(a2.pending()).isEqualTo(2);
    assertThat(a2.availability()).isEqualTo(Availability.BUSY);
    assertThat(a2.weight()).isEqualTo(2);
    assertThat(a2.endpoint().label("zone")).isEqualTo("x");
  }

  @Test
  void aRepeatedAddressIsFoundAmongManyWhereverItIs() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(4);
    for (int n : new int[] {1, 2, 3, 64, 1000, 5000}) {
      int[] weights = new int[n];
      java.util.Arrays.fill(weights, 1);
      List<Endpoint> distinct = endpoints(weights);
      ChildBalancer<Integer> b = ChildBalancer.of(Algorithm.ROUND_ROBIN.create(seeded(1)));
      b.update(distinct, e -> 0);
      assertThat(b.nodes()).hasSize(n);
      b.setNodes(b.nodes());
      for (int round = 0; round < 5; round++) {
        Endpoint twice = distinct.get(r.nextInt(n));
        List<Endpoint> dup = new ArrayList<>(distinct);
        dup.add(r.nextInt(n + 1), Endpoint.parse(twice.address() + ";weight=3"));
        assertThatThrownBy(() -> b.update(dup, e -> 0))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("address: " + twice.address() + " given twice");
        List<Node<Integer>> nodes = new ArrayList<>(b.nodes());
        nodes.add(r.nextInt(n + 1), nodes.get(r.nextInt(n)));
        assertThatThrownBy(() -> b.setNodes(nodes))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageEndingWith(" given twice");
      }
      assertThat(b.nodes()).hasSize(n);
    }
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void badUpdatesAreRejectedAndLeaveTheSetUntouched(Algorithm algorithm) {
    Balancer<Integer> b = balancer(algorithm, Fixtures.ticking(2), 2, 1);
    List<Node<Integer>> before = b.nodes();

    List<Endpoint> dup = new ArrayList<>(endpoints(1, 1));
    dup.add(Endpoint.parse(Fixtures.host(0) + ":8080;weight=9"));
    assertThatThrownBy(() -> b.update(dup, e -> 99))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("address: 10.0.0.1:8080 given twice");

    List<Endpoint> huge = List.of(
        Endpoint.parse("x:1;weight=" + Integer.MAX_VALUE), Endpoint.parse("y:1;weight=2"));
    assertThatThrownBy(() -> b.update(huge, e -> 99))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weights: sum 2147483649 (expected: <= 2147483647)");

    assertThat(b.nodes()).isEqualTo(before);
    int[] counts = new int[2];
    for (int i = 0; i < 300; i++) {
      counts[pickOnce(b)]++;
    }
    assertThat(counts[0] + counts[1]).isEqualTo(300);
    assertThat(counts[0]).isGreaterThan(counts[1] / 2);
  }

  /**
   * The update contract: a rejected set makes no value (no pool, no subchannel) and changes
   * nothing, whichever check rejects it; {@link ChildBalancer#validate} rejects exactly the same sets.
   */
  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aRejectedUpdateMakesNoValue(Algorithm algorithm) {
    ChildBalancer<Integer> b = ChildBalancer.of(balancer(algorithm, seeded(7), 1, 1));
    List<Node<Integer>> before = b.nodes();
    List<List<Endpoint>> bad = new ArrayList<>();
    bad.add(List.of(Endpoint.parse("x:1"), Endpoint.parse("y:1"), Endpoint.parse("x:1;weight=2")));
    bad.add(List.of(Endpoint.parse("x:1;weight=" + Integer.MAX_VALUE), Endpoint.parse("y:1")));
    if (algorithm == Algorithm.VNSWRR) {
      // accepted by every other algorithm: only the ring is too large
      bad.add(List.of(Endpoint.parse("x:1;weight=16777216"), Endpoint.parse("y:1;weight=16777217")));
    }
    AtomicInteger made = new AtomicInteger();
    for (List<Endpoint> set : bad) {
      assertThatThrownBy(() -> b.validate(set)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> b.update(set, e -> made.incrementAndGet()))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(made).hasValue(0);
    assertThat(b.nodes()).isEqualTo(before);
    List<Endpoint> good = List.of(Endpoint.parse("x:1;weight=16777215"), Endpoint.parse("y:1"));
    b.validate(good);
    assertThat(b.nodes()).isEqualTo(before);
  }

  @Test
  void vnswrrRejectsARingTooLargeToHold() {
    Balancer<Integer> b = balancer(Algorithm.VNSWRR, seeded(3), 1, 1);
    List<Endpoint> coprime = List.of(
        Endpoint.parse("x:1;weight=20000000"), Endpoint.parse("y:1;weight=1"));
    assertThatThrownBy(() -> b.update(coprime, e -> 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("weights: Σ weight/gcd = 20000001 virtual nodes (expected: <= 16777216");
    assertThat(b.nodes()).hasSize(2);
    // Large weights with a large common divisor are fine: the ring is Σw/gcd.
    b.update(List.of(Endpoint.parse("x:1;weight=200000000"), Endpoint.parse("y:1;weight=100000000")),
        e -> e.host().equals("x") ? 0 : 1);
    int[] counts = new int[2];
    for (int i = 0; i < 30; i++) {
      counts[pickOnce(b)]++;
    }
    assertThat(counts).containsExactly(20, 10);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void extraCompletionsAndNegativeLatencyAreClamped(Algorithm algorithm) {
    Balancer<Integer> b = balancer(algorithm, seeded(4), 1);
    Node<Integer> n = b.pick();
    n.complete(-5, true); // clamped to 0
    n.complete(1_000, true); // one more than picked: pending stays at 0
    n.cancel();
    assertThat(n.pending()).isZero();
    double estimate = n.rttEstimateNanos();
    assertThat(estimate).satisfiesAnyOf(
        e -> assertThat(e).isEqualTo(-1.0), // not tracked
        e -> assertThat(e).isBetween(0.0, 30e6));
    assertThat(pickOnce(b)).isZero();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void renewGivesASharedNodeItsNewEndpointAndKeepsItsState(Algorithm algorithm) {
    ChildBalancer<Integer> b = ChildBalancer.of(algorithm.create(seeded(6)));
    Node<Integer> n = b.newNode(Endpoint.parse("a:1;weight=2"), 7);
    n.start();
    b.renew(n, Endpoint.parse("a:1;weight=5;zone=x"));
    assertThat(n.weight()).isEqualTo(5);
    assertThat(n.endpoint().label("zone")).isEqualTo("x");
    assertThat(n.value()).isEqualTo(7);
    assertThat(n.pending()).isEqualTo(1);
    // the balancer given the node again balances by the new weight
    Node<Integer> other = b.newNode(Endpoint.parse("b:1"), 8);
    b.setNodes(List.of(n, other));
    if (algorithm == Algorithm.VNSWRR || algorithm == Algorithm.SWRR) {
      int toN = 0;
      for (int i = 0; i < 6; i++) {
        Node<Integer> p = b.pick();
        p.cancel();
        toN += p == n ? 1 : 0;
      }
      assertThat(toN).isEqualTo(5); // one cycle of weights 5 and 1
    }
    assertThatThrownBy(() -> b.renew(n, Endpoint.parse("b:1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same address");
    Algorithm foreignAlgorithm = algorithm == Algorithm.P2C_PEAK_EWMA
        ? Algorithm.ROUND_ROBIN : Algorithm.P2C_PEAK_EWMA;
    ChildBalancer<Integer> foreignBalancer = ChildBalancer.of(foreignAlgorithm.create(seeded(6)));
    Node<Integer> foreign = foreignBalancer.newNode(Endpoint.parse("c:1"), 9);
    assertThatThrownBy(() -> b.renew(foreign, Endpoint.parse("c:1;weight=3")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("made for another algorithm");
    assertThat(foreign.weight()).isEqualTo(1);
  }

  @Test
  void nodesFromAnotherAlgorithmAreRejected() {
    ChildBalancer<Integer> ewma = ChildBalancer.of(Algorithm.P2C_PEAK_EWMA.create(seeded(5)));
    ChildBalancer<Integer> rr = ChildBalancer.of(Algorithm.ROUND_ROBIN.create(seeded(5)));
    Node<Integer> foreign = rr.newNode(Endpoint.parse("a:1"), 1);
    assertThatThrownBy(() -> ewma.setNodes(List.of(foreign)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("made for another algorithm");
    Node<Integer> own = ewma.newNode(Endpoint.parse("a:1"), 1);
    ewma.setNodes(List.of(own));
    assertThat(ewma.pick()).isSameAs(own);
  }

  @Test
  void configRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> BalancerConfig.builder().maxEffort(0))
        .hasMessage("maxEffort: 0 (expected: > 0)");
    assertThatThrownBy(() -> BalancerConfig.builder().decayTime(java.time.Duration.ZERO))
        .hasMessage("decayTime: PT0S (expected: > 0)");
    assertThatThrownBy(() -> BalancerConfig.builder().defaultRtt(java.time.Duration.ofMillis(-1)))
        .hasMessage("defaultRtt: PT-0.001S (expected: >= 0)");
    assertThatThrownBy(() -> BalancerConfig.builder().maxFails(0))
        .hasMessage("maxFails: 0 (expected: > 0)");
    // past Long.MAX_VALUE nanoseconds, toNanos() in the peak-EWMA metric would overflow
    java.time.Duration forever = java.time.temporal.ChronoUnit.FOREVER.getDuration();
    assertThatThrownBy(() -> BalancerConfig.builder().decayTime(forever))
        .hasMessageStartingWith("decayTime: PT2562047788015215H30M7.999999999S (expected: at"
            + " most Long.MAX_VALUE nanoseconds, about 292 years)");
    assertThatThrownBy(() -> BalancerConfig.builder().defaultRtt(
            BalancerConfig.MAX_DURATION.plusNanos(1)))
        .hasMessageStartingWith("defaultRtt: PT2562047H47M16.854775808S (expected: at most");
    BalancerConfig longest = BalancerConfig.builder().decayTime(BalancerConfig.MAX_DURATION)
        .defaultRtt(BalancerConfig.MAX_DURATION).build();
    Balancer<Integer> ewma = Algorithm.P2C_PEAK_EWMA.create(longest);
    ewma.update(endpoints(1, 1), e -> 0);
    Node<Integer> n = ewma.pick();
    assertThat(n.rttEstimateNanos()).isGreaterThan(9e18); // the default RTT, barely decayed
    n.complete(1_000, true);
    // the first sample replaces it (read on the system clock: decayed by a few nanoseconds)
    assertThat(n.rttEstimateNanos()).isBetween(999.0, 1_000.0);
    assertThatThrownBy(() -> Algorithm.fromName("fastest"))
        .hasMessageStartingWith("balancer: fastest (expected: one of round_robin,");
    assertThatThrownBy(() -> Algorithm.fromName("p2c-peak-ewmaa"))
        .hasMessageStartingWith("balancer: p2c-peak-ewmaa (did you mean p2c_peak_ewma?");
    assertThat(Algorithm.fromName("P2C-Peak-EWMA")).isEqualTo(Algorithm.P2C_PEAK_EWMA);
    assertThat(Algorithm.fromName("round_robin")).isEqualTo(Algorithm.ROUND_ROBIN);
  }

  @Test
  void coreHasNoNettyGrpcSpringOrMicrometerOnItsClasspath() {
    for (String type : List.of("io.netty.channel.Channel", "io.grpc.LoadBalancer",
        "org.springframework.context.ApplicationContext", "io.micrometer.core.instrument.MeterRegistry")) {
      assertThatThrownBy(() -> Class.forName(type)).isInstanceOf(ClassNotFoundException.class);
    }
  }
}

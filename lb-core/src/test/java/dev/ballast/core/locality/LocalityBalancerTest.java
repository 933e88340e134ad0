package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link LocalityBalancer} over real nodes: Envoy's examples as shares of many seeded picks (the
 * figures of Envoy's code where its pages differ), hostile zone settings, health changes seen at
 * the next pick, state kept across updates.
 */
class LocalityBalancerTest {

  private static final int PICKS = 200_000;

  private static LocalityBalancer<String> balancer(LocalityConfig config, long seed) {
    return LocalityBalancer.<String>builder().algorithm(Algorithm.ROUND_ROBIN)
        .config(BalancerConfig.builder().random(new SplittableRandom(seed)).build())
        .locality(config).build();
  }

  /** {@code count} endpoints named {@code prefix-i}, the first {@code healthy} healthy. */
  private static List<Endpoint> group(String prefix, int count, int healthy, String labels) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(Endpoint.parse("10." + Math.abs(prefix.hashCode() % 200) + "." + (i / 200) + "."
          + (i % 200) + ":80;name=" + prefix + labels
          + (i < healthy ? "" : ";health=unhealthy")));
    }
    return out;
  }

  /** Picks (each completed at once) and counts them by a function of the node's endpoint. */
  private static Map<String, Integer> shares(LocalityBalancer<String> b,
      Function<Endpoint, String> key) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < PICKS; i++) {
      Node<String> n = b.pick();
      n.complete(1_000_000, true);
      counts.merge(key.apply(n.endpoint()), 1, Integer::sum);
    }
    return counts;
  }

  private static double percent(Map<String, Integer> counts, String key) {
    return 100.0 * counts.getOrDefault(key, 0) / PICKS;
  }

  /**
   * Envoy, Priority levels: P=0 at 72% healthy keeps all traffic; at 71%, 99/1; at 50%, 70/30;
   * at 25%, 35/65 (P=1 fully healthy).
   */
  @ParameterizedTest(name = "P0 {0}% healthy -> {1}% to P0")
  @CsvSource({"100, 100", "72, 100", "71, 99", "50, 70", "25, 35", "0, 0"})
  void priorityZeroKeepsItsTrafficUntilBelow72PercentHealthy(int healthy, int toP0) {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), healthy);
    List<Endpoint> set = new ArrayList<>(group("p0", 100, healthy, ";priority=0"));
    set.addAll(group("p1", 100, 100, ";priority=1"));
    b.update(set, Endpoint::address);
    Map<String, Integer> counts = shares(b, e -> "P" + e.priority());
    assertThat(percent(counts, "P0")).isCloseTo(toP0, within(0.5));
    assertThat(percent(counts, "P1")).isCloseTo(100 - toP0, within(0.5));
  }

  @Test
  void aHealthVerdictIsSeenAtTheNextPickAndUndoneWhenItRecovers() {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 3);
    List<Endpoint> set = new ArrayList<>(group("p0", 10, 10, ";priority=0"));
    set.addAll(group("p1", 10, 10, ";priority=1"));
    b.update(set, Endpoint::address);
    assertThat(b.describe()).containsExactly("priority=0 healthy=100% degraded=0% panic=false",
        "priority=1 healthy=0% degraded=0% panic=false");
    List<Node<String>> p0 = b.nodes().subList(0, 10);
    for (int i = 0; i < 5; i++) {
      p0.get(i).setHealth(Health.UNHEALTHY); // 50% healthy: 70/30
    }
    assertThat(b.describe()).containsExactly("priority=0 healthy=70% degraded=0% panic=false",
        "priority=1 healthy=30% degraded=0% panic=false");
    Map<String, Integer> counts = shares(b, e -> "P" + e.priority());
    assertThat(percent(counts, "P0")).isCloseTo(70, within(0.5));
    for (int i = 0; i < 5; i++) {
      p0.get(i).setHealth(Health.HEALTHY);
    }
    assertThat(b.describe().get(0)).isEqualTo("priority=0 healthy=100% degraded=0% panic=false");
  }

  @Test
  void aBurstOfVerdictsIsOneRebuildAtTheNextPickNotOnePerEndpoint() {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 3);
    List<Endpoint> set = new ArrayList<>(group("p0", 100, 100, ";priority=0"));
    set.addAll(group("p1", 100, 100, ";priority=1"));
    b.update(set, Endpoint::address);
    LocalityPlan<String> before = b.planAsIs();
    b.nodes().subList(0, 50).forEach(n -> n.setHealth(Health.UNHEALTHY));
    assertThat(b.planAsIs()).isSameAs(before); // the checker's thread made nothing
    b.pick().cancel();
    LocalityPlan<String> after = b.planAsIs();
    assertThat(after).isNotSameAs(before);
    assertThat(after.loads.healthy).containsExactly(70, 30);
    b.pick().cancel();
    assertThat(b.planAsIs()).isSameAs(after); // nothing changed since: no rebuild
  }

  @Test
  void picksRacingVerdictsAndUpdatesEndOnTablesThatMatchTheLastHealth() throws Exception {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 12);
    List<Endpoint> set = new ArrayList<>(group("p0", 20, 20, ";priority=0;zone=a"));
    set.addAll(group("p1", 20, 20, ";priority=1;zone=b"));
    b.update(set, Endpoint::address);
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    List<Thread> pickers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      Thread picker = new Thread(() -> {
        try {
          while (!stop.get()) {
            b.pick().complete(1000, true);
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      picker.start();
      pickers.add(picker);
    }
    SplittableRandom r = new SplittableRandom(12);
    for (int round = 0; round < 2000; round++) {
      List<Node<String>> nodes = b.nodes();
      nodes.get(r.nextInt(20)).setHealth(r.nextBoolean() ? Health.HEALTHY : Health.UNHEALTHY);
      if (round % 200 == 0) {
        b.update(set, Endpoint::address);
      }
    }
    stop.set(true);
    for (Thread t : pickers) {
      t.join(10_000);
    }
    assertThat(failure.get()).isNull();
    b.nodes().subList(0, 10).forEach(n -> n.setHealth(Health.UNHEALTHY));
    b.nodes().subList(10, 20).forEach(n -> n.setHealth(Health.HEALTHY));
    assertThat(b.describe()).containsExactly("priority=0 healthy=70% degraded=0% panic=false",
        "priority=1 healthy=30% degraded=0% panic=false");
  }

  /**
   * Envoy, Panic threshold: P=0 and P=1 each 25% healthy: the normalized total health is 70, both
   * levels panic and take 50% each, spread over all their endpoints whatever their health.
   */
  @Test
  void belowThePanicThresholdALevelSpreadsItsShareOverAllItsEndpoints() {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 5);
    List<Endpoint> set = new ArrayList<>(group("p0", 100, 25, ";priority=0"));
    set.addAll(group("p1", 100, 25, ";priority=1"));
    b.update(set, Endpoint::address);
    assertThat(b.describe()).containsExactly("priority=0 healthy=50% degraded=0% panic=true",
        "priority=1 healthy=50% degraded=0% panic=true");
    Map<String, Integer> counts = shares(b, e -> "P" + e.priority() + "-" + e.health());
    // in panic, the unhealthy three quarters of each level get three quarters of its share
    assertThat(percent(counts, "P0-unhealthy")).isCloseTo(37.5, within(0.5));
    assertThat(percent(counts, "P0-healthy")).isCloseTo(12.5, within(0.5));
    assertThat(percent(counts, "P1-unhealthy")).isCloseTo(37.5, within(0.5));
    // Above the threshold, and with P=1 able to take the rest: no panic, no unhealthy picks.
    LocalityBalancer<String> calm = balancer(LocalityConfig.defaults(), 6);
    List<Endpoint> healthyP1 = new ArrayList<>(group("p0", 100, 25, ";priority=0"));
    healthyP1.addAll(group("p1", 100, 100, ";priority=1"));
    calm.update(healthyP1, Endpoint::address);
    Map<String, Integer> c = shares(calm, e -> "P" + e.priority() + "-" + e.health());
    assertThat(percent(c, "P0-healthy")).isCloseTo(35, within(0.5));
    assertThat(c).doesNotContainKey("P0-unhealthy");
  }

  @Test
  void withPanicOffAndNothingHealthyAPickFails() {
    LocalityBalancer<String> b = balancer(
        LocalityConfig.builder().panicThreshold(0).build(), 1);
    b.update(group("p0", 4, 0, ""), Endpoint::address);
    assertThatThrownBy(b::pick).isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("locality(round_robin)");
  }

  /**
   * Envoy, Locality weighted load balancing: localities X (weight 1) and Y (weight 2), Y fully
   * available; X's available percent -> its share of traffic, exactly from the tables, and as
   * picks. X holds 100 endpoints of weight 1, Y 100 of weight 2. At 69% the figure is Envoy's
   * code's ({@code LocalityWrr::effectiveLocalityWeight}: 100 × min(1, 1.4 × 0.69) = 96.6, so
   * 96.6 / 296.6 = 33%), not the 32% of a weight floored to whole percents (96 / 296).
   */
  @ParameterizedTest(name = "X {0}% available -> {1}% of traffic")
  @CsvSource({"100, 33", "70, 33", "69, 33", "50, 26", "25, 15", "0, 0"})
  void localityWeightsAreScaledByAvailability(int available, int toX) {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), available);
    List<Endpoint> set = new ArrayList<>(group("x", 100, available, ";zone=x"));
    for (Endpoint e : group("y", 100, 100, ";zone=y")) {
      set.add(e.withWeight(2));
    }
    b.update(set, Endpoint::address);
    LocalityPlan.Group<String> g = b.plan().levels[0].healthy;
    double x = g.weights[0];
    double all = g.weights[0] + g.weights[1];
    assertThat(Math.round(100.0 * x / all)).isEqualTo(toX);
    Map<String, Integer> counts = shares(b, Endpoint::zone);
    assertThat(percent(counts, "x")).isCloseTo(100.0 * x / all, within(0.5));
  }

  /** Zone a's share of the effective locality weights of the plan's first level, percent. */
  private static double shareOfA(LocalityBalancer<String> b) {
    LocalityPlan.Group<String> g = b.plan().levels[0].healthy;
    return 100 * g.weights[0] / (g.weights[0] + g.weights[1]);
  }

  /**
   * Envoy's {@code LocalityWrrTest.UnhealthyFailover}: locality weights 1 and 2 (here zone a's
   * five endpoints of weight 2 and b's one of weight 20), a's healthy endpoints 5 down to 0: of
   * 100 picks Envoy's scheduler gives a 33, 33, 29, 22, 12 and 0; the effective weights give
   * those shares within one pick.
   */
  @ParameterizedTest(name = "{0} of 5 healthy in a -> {1} of 100 picks")
  @CsvSource({"5, 33", "4, 33", "3, 29", "2, 22", "1, 12", "0, 0"})
  void envoyLocalityWrrUnhealthyFailover(int healthy, int picksOfA) {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 17);
    List<Endpoint> set = new ArrayList<>();
    group("a", 5, healthy, ";zone=a").forEach(e -> set.add(e.withWeight(2)));
    group("b", 1, 1, ";zone=b").forEach(e -> set.add(e.withWeight(20)));
    b.update(set, Endpoint::address);
    assertThat(shareOfA(b)).isCloseTo(picksOfA, within(1.0));
  }

  /**
   * Envoy's {@code OverProvisioningFactorTest.LocalityPickChanges}: localities of equal weight,
   * a with one of two endpoints healthy, b with its one: factor 1.0 gives 33/67, 2.0 gives
   * 50/50.
   */
  @ParameterizedTest(name = "factor {0} -> a {1}%")
  @CsvSource({"1.0, 33", "2.0, 50"})
  void envoyOverProvisioningFactorLocalityPickChanges(double factor, int toA) {
    LocalityBalancer<String> b = balancer(
        LocalityConfig.builder().overprovisioningFactor(factor).build(), 18);
    List<Endpoint> set = new ArrayList<>(group("a", 2, 1, ";zone=a"));
    group("b", 1, 1, ";zone=b").forEach(e -> set.add(e.withWeight(2)));
    b.update(set, Endpoint::address);
    assertThat(shareOfA(b)).isCloseTo(toA, within(1.0));
  }

  /**
   * Envoy, Zone aware routing, for callers spread 50/30/20 over zones a, b and c, and an upstream
   * of 3, 3 and 4 endpoints (30/30/40%). A caller in a, whose zone holds fewer endpoints than
   * callers, keeps 30/50 = 60% local and spills the rest by residual capacity: b has none (30 -
   * 30), c has 20 (40 - 20), so 40% goes to c. Callers in b and c stay local. Summed, every
   * endpoint gets the same load.
   */
  @Test
  void zoneAwareRoutingKeepsWhatTheLocalZoneCanTakeAndSpillsByResidualCapacity() {
    Map<String, Double> callers = Map.of("a", 50.0, "b", 30.0, "c", 20.0);
    List<Endpoint> set = new ArrayList<>(group("a", 3, 3, ";zone=a"));
    set.addAll(group("b", 3, 3, ";zone=b"));
    set.addAll(group("c", 4, 4, ";zone=c"));
    double[] perZone = new double[3];
    Map<String, Double> perEndpoint = new HashMap<>();
    for (String zone : List.of("a", "b", "c")) {
      LocalityBalancer<String> b = balancer(LocalityConfig.builder().localZone(zone)
          .callerZones(callers).build(), zone.charAt(0));
      b.update(set, Endpoint::address);
      int[] exact = b.plan().levels[0].healthy.route.shares();
      Map<String, Integer> counts = shares(b, Endpoint::zone);
      int[] expected = switch (zone) {
        case "a" -> new int[] {6000, 0, 4000};
        case "b" -> new int[] {0, 10_000, 0};
        default -> new int[] {0, 0, 10_000};
      };
      assertThat(exact).as("from %s", zone).containsExactly(expected);
      for (int z = 0; z < 3; z++) {
        String name = String.valueOf((char) ('a' + z));
        assertThat(percent(counts, name)).as("from %s to %s", zone, name)
            .isCloseTo(expected[z] / 100.0, within(0.5));
        perZone[z] += callers.get(zone) * expected[z] / 10_000;
      }
      Map<String, Integer> byEndpoint = shares(b, Endpoint::address);
      byEndpoint.forEach((address, n) -> perEndpoint.merge(address,
          callers.get(zone) / 100 * n / PICKS, Double::sum));
    }
    assertThat(perZone).containsExactly(30, 30, 40);
    // every endpoint gets a tenth of all callers' traffic, within sampling noise
    assertThat(perEndpoint).hasSize(10).allSatisfy((a, share) ->
        assertThat(share).isCloseTo(0.1, within(0.004)));
  }

  @Test
  void zoneAwareRoutingSpillsWhenTheLocalZoneTurnsUnhealthyAndComesBack() {
    LocalityBalancer<String> b = balancer(LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 1, "b", 1, "c", 1)).build(), 11);
    List<Endpoint> set = new ArrayList<>(group("a", 4, 4, ";zone=a"));
    set.addAll(group("b", 4, 4, ";zone=b"));
    set.addAll(group("c", 4, 4, ";zone=c"));
    b.update(set, Endpoint::address);
    assertThat(percent(shares(b, Endpoint::zone), "a")).isEqualTo(100);
    List<Node<String>> zoneA = b.nodes().subList(0, 4);
    zoneA.forEach(n -> n.setHealth(Health.UNHEALTHY)); // P0 is then 66% healthy: no spill
    Map<String, Integer> spilled = shares(b, Endpoint::zone);
    assertThat(spilled).doesNotContainKey("a");
    assertThat(percent(spilled, "b")).isCloseTo(50, within(0.5));
    zoneA.forEach(n -> n.setHealth(Health.HEALTHY));
    assertThat(percent(shares(b, Endpoint::zone), "a")).isEqualTo(100);
  }

  /**
   * A local zone that no endpoint has and the callers do not list is no local zone (Envoy's
   * {@code earlyExitNonLocalityRouting}: no caller in the local zone): picks go to every healthy
   * endpoint by weight, 6:10:8, not all to the one zone whose residual capacity is left.
   */
  @Test
  void anUnknownLocalZoneIsNoLocalZone() {
    LocalityBalancer<String> b = balancer(LocalityConfig.builder().localZone("x")
        .callerZones(Map.of("a", 1, "c", 1)).build(), 13);
    List<Endpoint> set = new ArrayList<>(group("a", 6, 6, ";zone=a"));
    set.addAll(group("b", 10, 10, ";zone=b"));
    set.addAll(group("c", 8, 8, ";zone=c"));
    b.update(set, Endpoint::address);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 24_000; i++) {
      counts.merge(b.pickUncounted().endpoint().zone(), 1, Integer::sum);
    }
    assertThat(counts).isEqualTo(Map.of("a", 6000, "b", 10_000, "c", 8000));
  }

  /**
   * Caller shares of 1e308 each sum past the largest double; they are scaled exactly, so they
   * route as equal shares do: from a, 3000 / 3333 of the picks stay local (9000 of 10000), the
   * rest goes to c, the only zone with residual capacity (4000 - 3333).
   */
  @Test
  void hugeCallerSharesRouteAsTheirRatiosWithoutOverflow() {
    List<Endpoint> set = new ArrayList<>(group("a", 3, 3, ";zone=a"));
    set.addAll(group("b", 3, 3, ";zone=b"));
    set.addAll(group("c", 4, 4, ";zone=c"));
    LocalityBalancer<String> huge = balancer(LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 1e308, "b", 1e308, "c", 1e308)).build(), 14);
    huge.update(set, Endpoint::address);
    ZoneRoute r = huge.plan().levels[0].healthy.route;
    assertThat(r.localShare).isEqualTo(9000);
    assertThat(r.shares()).containsExactly(9000, 0, 1000);
    LocalityBalancer<String> ones = balancer(LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 1, "b", 1, "c", 1)).build(), 14);
    ones.update(set, Endpoint::address);
    assertThat(ones.plan().levels[0].healthy.route.shares()).containsExactly(r.shares());
    Map<String, Integer> counts = shares(huge, Endpoint::zone);
    assertThat(percent(counts, "a")).isCloseTo(90, within(0.5));
    assertThat(percent(counts, "c")).isCloseTo(10, within(0.5));
  }

  @Test
  void badCallerSharesAreRefusedNamingTheFieldAndTheValue() {
    for (double bad : new double[] {Double.NaN, -1, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> LocalityConfig.builder().callerZones(Map.of("a", 1, "b", bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("callerZones: b=" + bad);
    }
    assertThatThrownBy(() -> LocalityConfig.builder().callerZones(Map.of("a", 0, "b", 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected: at least one share > 0");
  }

  /**
   * Where Envoy fails: priority 0 holds a {degraded}, b {healthy, unhealthy}, c {healthy,
   * unhealthy}, the caller is in a. Degraded endpoints take 33% of the load; Envoy sends those
   * picks to the degraded endpoints of the zone its healthy route chose (b or c, which have
   * none) and fails them. Ballast picks them among the level's degraded endpoints: none fails.
   */
  @Test
  void underZoneRoutingDegradedPicksGoToTheLevelsDegradedEndpoints() {
    LocalityBalancer<String> b = balancer(LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 1, "b", 1, "c", 1)).minClusterSize(2).build(), 15);
    List<Endpoint> set = new ArrayList<>(List.of(
        Endpoint.parse("10.9.0.1:80;zone=a;health=degraded")));
    set.addAll(group("b", 2, 1, ";zone=b"));
    set.addAll(group("c", 2, 1, ";zone=c"));
    b.update(set, Endpoint::address);
    assertThat(b.describe()).containsExactly("priority=0 healthy=67% degraded=33% panic=false",
        "zone=a local=0.0%"); // a has no healthy endpoint: its healthy picks all spill
    Map<String, Integer> counts = shares(b, e -> e.zone() + "-" + e.health());
    assertThat(percent(counts, "a-degraded")).isCloseTo(33, within(0.5));
    assertThat(percent(counts, "b-healthy")).isCloseTo(33.5, within(0.5));
    assertThat(counts.keySet()).containsOnly("a-degraded", "b-healthy", "c-healthy");
  }

  /** A balancer for a caller in zone a, callers in a and b alike. */
  private static LocalityBalancer<String> callerInAOfAAndB(long seed) {
    return balancer(LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 1, "b", 1)).build(), seed);
  }

  /**
   * Zone a's percent of many picks, after checking that the first level's healthy endpoints
   * are routed by zone exactly when all picks stay in a.
   */
  private static double routedShareOfA(LocalityBalancer<String> b) {
    double a = percent(shares(b, Endpoint::zone), "a");
    assertThat(b.plan().levels[0].healthy.route != null).isEqualTo(a == 100);
    return a;
  }

  /**
   * Zone-aware routing is for priority 0 only (Envoy latches no locality routing for other
   * levels): a set whose endpoints are all at priority 1 is picked by weight, ignoring zones.
   */
  @Test
  void zoneAwareRoutingIsForPriorityZeroOnly() {
    LocalityBalancer<String> b = callerInAOfAAndB(16);
    List<Endpoint> set = new ArrayList<>(group("a", 3, 3, ";zone=a;priority=1"));
    set.addAll(group("b", 3, 3, ";zone=b;priority=1"));
    b.update(set, Endpoint::address);
    assertThat(routedShareOfA(b)).isCloseTo(50, within(0.5));
    List<Endpoint> zero = new ArrayList<>();
    set.forEach(e -> zero.add(Endpoint.parse(e.toString().replace(";priority=1", ""))));
    b.update(zero, Endpoint::address);
    assertThat(routedShareOfA(b)).isEqualTo(100);
  }

  /** The default child is weighted round robin by endpoint weight: weights 3 and 1 give 3:1. */
  @Test
  void theDefaultChildHonoursEndpointWeights() {
    LocalityBalancer<String> b = LocalityBalancer.<String>builder().build();
    assertThat(b.name()).isEqualTo("locality(vnswrr)");
    b.update(List.of(Endpoint.parse("10.0.0.1:80;weight=3"), Endpoint.parse("10.0.0.2:80")),
        Endpoint::address);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 4000; i++) {
      counts.merge(b.pickUncounted().address(), 1, Integer::sum);
    }
    assertThat(counts).isEqualTo(Map.of("10.0.0.1:80", 3000, "10.0.0.2:80", 1000));
  }

  /**
   * Envoy's {@code ZoneAwareSmallCluster}: below the minimum cluster size, no route; the healthy
   * endpoints are picked by weight, ignoring zones (2 of 5 in a: 40%).
   */
  @Test
  void belowTheMinimumClusterSizeEndpointsArePickedByWeight() {
    LocalityBalancer<String> small = callerInAOfAAndB(2);
    List<Endpoint> five = new ArrayList<>(group("a", 2, 2, ";zone=a"));
    five.addAll(group("b", 3, 3, ";zone=b"));
    small.update(five, Endpoint::address);
    assertThat(routedShareOfA(small)).isCloseTo(40, within(0.5));
    List<Endpoint> six = new ArrayList<>(five);
    six.addAll(group("c", 1, 1, ";zone=a"));
    small.update(six, Endpoint::address);
    assertThat(routedShareOfA(small)).isEqualTo(100);
  }

  @Test
  void callerSharesGivenLaterTurnZoneAwareRoutingOn() {
    LocalityBalancer<String> b = balancer(LocalityConfig.builder().localZone("a").build(), 4);
    List<Endpoint> set = new ArrayList<>(group("a", 3, 3, ";zone=a"));
    set.addAll(group("b", 3, 3, ";zone=b"));
    b.update(set, Endpoint::address);
    assertThat(percent(shares(b, Endpoint::zone), "a")).isCloseTo(50, within(0.5));
    b.callerZones(Map.of("a", 1, "b", 1));
    assertThat(b.config().zoneAware()).isTrue();
    assertThat(percent(shares(b, Endpoint::zone), "a")).isEqualTo(100);
  }

  /** Envoy, Degraded endpoints: 71% healthy and 29% degraded: 99% to healthy, 1% to degraded. */
  @Test
  void degradedEndpointsTakeOnlyWhatHealthyOnesCannot() {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 8);
    List<Endpoint> set = new ArrayList<>(group("h", 71, 71, ""));
    for (Endpoint e : group("d", 29, 29, ";health=degraded")) {
      set.add(e);
    }
    b.update(set, Endpoint::address);
    Map<String, Integer> counts = shares(b, e -> e.health().toString());
    assertThat(percent(counts, "degraded")).isCloseTo(1, within(0.2));
  }

  @Test
  void nodesKeepTheirStateAndValueAcrossUpdates() {
    LocalityBalancer<String> b = balancer(LocalityConfig.defaults(), 9);
    b.update(List.of(Endpoint.parse("a:1;zone=x"), Endpoint.parse("b:1;zone=y")),
        e -> "v-" + e.address());
    Node<String> a = b.nodes().get(0);
    a.start();
    List<Node<String>> removed = b.update(List.of(Endpoint.parse("a:1;zone=y;priority=1"),
        Endpoint.parse("c:1")), e -> "new-" + e.address());
    assertThat(removed).extracting(Node::address).containsExactly("b:1");
    assertThat(b.nodes().get(0)).isSameAs(a);
    assertThat(a.pending()).isEqualTo(1);
    assertThat(a.endpoint().priority()).isEqualTo(1);
    assertThat(b.nodes().get(1).value()).isEqualTo("new-c:1");
    assertThatThrownBy(() -> b.update(List.of(Endpoint.parse("a:1"), Endpoint.parse("a:1")),
        e -> "x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
    assertThat(b.nodes()).hasSize(2);
  }
}

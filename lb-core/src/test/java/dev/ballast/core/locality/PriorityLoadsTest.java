package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cases of Envoy's own unit tests ({@code LoadBalancerBaseTest} in {@code
 * test/extensions/load_balancing_policies/common/load_balancer_impl_base_test.cc}), each figure
 * as Envoy's test expects it; then the tables of Envoy's "Priority levels", "Degraded endpoints"
 * and "Panic threshold" pages, row by row, with the default overprovisioning factor (1.4) and
 * panic threshold (50%), where a row the pages give differently from Envoy's code holds the
 * code's figure and says so. In the tables each level holds 100 endpoints, so a percent of
 * healthy endpoints is a count.
 */
class PriorityLoadsTest {

  /**
   * Levels as Envoy's tests write them, {@code hosts/healthy/degraded} each (degraded optional),
   * separated by spaces, e.g. {@code "4/2 4/2"}.
   */
  private static PriorityLoads envoy(String levels, int factorPercent, double panicThreshold) {
    String[] ls = levels.split(" ");
    int[] total = new int[ls.length];
    int[] healthy = new int[ls.length];
    int[] degraded = new int[ls.length];
    for (int i = 0; i < ls.length; i++) {
      int[] l = ints(ls[i]);
      total[i] = l[0];
      healthy[i] = l[1];
      degraded[i] = l.length > 2 ? l[2] : 0;
    }
    return PriorityLoads.of(total, healthy, degraded, factorPercent, panicThreshold);
  }

  private static PriorityLoads envoy(String levels) {
    return envoy(levels, 140, 50);
  }

  private static boolean[] panics(String s) {
    String[] p = s.split("/");
    boolean[] out = new boolean[p.length];
    for (int i = 0; i < p.length; i++) {
      out[i] = p[i].equals("t");
    }
    return out;
  }

  /**
   * Envoy's {@code PrioritySelection}: both levels without a healthy endpoint are in total panic
   * and share by endpoint count (1 and 1: 50/50; 1 and 2: 34/66, the floors' remainder to the
   * first level); a healthy P=2 takes everything; a healthy P=0 takes it back.
   */
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"1/0 1/0, 50/50", "1/0 2/0, 34/66", "1/0 2/0 1/1, 0/0/100",
      "1/1 2/0 1/1, 100/0/0", "1/0 2/0 1/1, 0/0/100"})
  void envoyPrioritySelection(String levels, String healthy) {
    assertThat(envoy(levels).healthy).containsExactly(ints(healthy));
  }

  /** Envoy's {@code OverProvisioningFactor}: 2 of 4 healthy twice; 1.4 gives 70/30, 1.0 50/50. */
  @ParameterizedTest(name = "factor {0}% -> {1}")
  @CsvSource({"140, 70/30", "100, 50/50"})
  void envoyOverProvisioningFactor(int factor, String healthy) {
    assertThat(envoy("4/2 4/2", factor, 50).healthy).containsExactly(ints(healthy));
  }

  /**
   * Envoy's {@code GentleFailover}, its cases without excluded hosts (Ballast has none): a level
   * below the panic threshold does not panic while the total availability is 100; below it,
   * each level's own threshold decides.
   */
  @ParameterizedTest(name = "{0} -> {1}, panic {2}")
  @CsvSource({"1/1 1/1, 100/0, f/f", "2/1 2/1, 70/30, f/f", "4/1 2/2, 35/65, f/f",
      "4/1 4/1, 50/50, t/t"})
  void envoyGentleFailover(String levels, String healthy, String panic) {
    PriorityLoads l = envoy(levels);
    assertThat(l.healthy).containsExactly(ints(healthy));
    assertThat(l.panic).containsExactly(panics(panic));
  }

  /**
   * Envoy's {@code GentleFailoverWithExtraLevels}, every case in its order: scaling with the
   * remainder to the first level (34/33/33), total panic by endpoint count (50/30/20, 37/42/21,
   * an empty P=0: 0/67/33), spill into degraded endpoints, and with panic off (threshold 0) the
   * remainder to the first level with degraded endpoints (0/67/33 degraded).
   */
  @ParameterizedTest(name = "{0} threshold {1} -> healthy {2} degraded {3} panic {4}")
  @CsvSource({
      "1/1 1/1 1/1, 50, 100/0/0, 0/0/0, f/f/f",
      "2/1 2/1 2/1, 50, 70/30/0, 0/0/0, f/f/f",
      "4/1 2/2 2/1, 50, 35/65/0, 0/0/0, f/f/f",
      "4/1 4/1 4/1, 50, 35/35/30, 0/0/0, f/f/f",
      "5/1 5/1 5/1, 50, 34/33/33, 0/0/0, t/t/t",
      "5/0 5/0 5/5, 50, 0/0/100, 0/0/0, f/f/f",
      "5/0 5/0 5/4, 50, 0/0/100, 0/0/0, f/f/f",
      "5/0 5/0 5/2, 50, 34/33/33, 0/0/0, t/t/t",
      "5/0/5 5/2/2 5/2, 50, 0/56/44, 0/0/0, f/f/f",
      "5/0 3/0 2/0, 50, 50/30/20, 0/0/0, t/t/t",
      "5/0 6/2 3/1, 50, 37/42/21, 0/0/0, t/t/t",
      "5/0/1 5/0/5 5/1, 50, 0/0/28, 28/44/0, f/f/f",
      "5/0 5/0/2 5/0/1, 0, 0/0/0, 0/67/33, f/f/f",
      "5/0 5/0/2 5/0/1, 50, 34/33/33, 0/0/0, t/t/t",
      "3/0 3/0 3/0, 50, 34/33/33, 0/0/0, t/t/t",
      "0/0 6/0 3/0, 50, 0/67/33, 0/0/0, t/t/t"})
  void envoyGentleFailoverWithExtraLevels(String levels, double threshold, String healthy,
      String degraded, String panic) {
    PriorityLoads l = envoy(levels, 140, threshold);
    assertThat(l.healthy).containsExactly(ints(healthy));
    assertThat(l.degraded).containsExactly(ints(degraded));
    assertThat(l.panic).containsExactly(panics(panic));
  }

  /**
   * The departures from the pages as Ballast had them, in Envoy's figures: total panic splits by
   * endpoint count (P=0 {healthy, unhealthy, unhealthy}, P=1 {unhealthy}: 75/25, not 100/0); one
   * level {healthy, degraded, degraded, unhealthy, unhealthy} takes 34/66 (floors, remainder to
   * the healthy), not 33/67; with nothing available and panic off, P=0 gets 100 and no level
   * panics (picks then fail), as Envoy's {@code recalculatePerPriorityPanic}.
   */
  @ParameterizedTest(name = "{0} threshold {1} -> healthy {2} degraded {3} panic {4}")
  @CsvSource({"3/1 1/0, 50, 75/25, 0/0, t/t", "5/1/2, 50, 34, 66, f",
      "10/0 10/0, 50, 50/50, 0/0, t/t", "10/0 10/0, 0, 100/0, 0/0, f/f"})
  void envoysCodeWhereTheOldFiguresFollowedThePages(String levels, double threshold,
      String healthy, String degraded, String panic) {
    PriorityLoads l = envoy(levels, 140, threshold);
    assertThat(l.healthy).containsExactly(ints(healthy));
    assertThat(l.degraded).containsExactly(ints(degraded));
    assertThat(l.panic).containsExactly(panics(panic));
  }

  private static PriorityLoads loads(int[] healthy, int[] degraded) {
    int[] total = new int[healthy.length];
    java.util.Arrays.fill(total, 100);
    return PriorityLoads.of(total, healthy, degraded, 140, 50);
  }

  private static int[] ints(String s) {
    return java.util.Arrays.stream(s.split("/")).mapToInt(Integer::parseInt).toArray();
  }

  /**
   * Envoy, Priority levels: two levels with P=1 fully healthy, two levels both degrading, and
   * three levels (healthy percents -> traffic percents).
   */
  @ParameterizedTest(name = "healthy {0} -> traffic {1}")
  @CsvSource({
      // P=1 100% healthy
      "100/100, 100/0", "72/100, 100/0", "71/100, 99/1", "50/100, 70/30", "25/100, 35/65",
      "0/100, 0/100",
      // both levels degrading
      "72/72, 100/0", "71/71, 99/1", "50/50, 70/30", "25/25, 50/50",
      // three levels
      "100/100/100, 100/0/0", "72/72/100, 100/0/0", "71/71/100, 99/1/0", "50/50/100, 70/30/0",
      // 25/25/20: the page says 36/36/28; in Envoy's code the total availability is 98, every
      // level is below the panic threshold, so all three are in total panic and share by
      // endpoint count, the remainder to the first (as GentleFailoverWithExtraLevels' 34/33/33)
      "25/100/100, 35/65/0", "25/25/100, 35/35/30", "25/25/20, 34/33/33"})
  void priorityLevelsSpillAsEnvoysTables(String healthy, String traffic) {
    int[] h = ints(healthy);
    PriorityLoads l = loads(h, new int[h.length]);
    assertThat(l.healthy).containsExactly(ints(traffic));
    assertThat(l.degraded).containsOnly(0);
  }

  /**
   * Envoy, Degraded endpoints: one level, healthy/degraded/unhealthy percents -> traffic to its
   * healthy and to its degraded endpoints.
   */
  @ParameterizedTest(name = "{0} -> healthy {1}%, degraded {2}%")
  @CsvSource({"100/0/0, 100, 0", "71/0/29, 100, 0", "71/29/0, 99, 1", "25/65/10, 35, 65",
      "5/0/95, 100, 0"})
  void degradedEndpointsTakeWhatHealthyOnesCannot(String split, int toHealthy, int toDegraded) {
    int[] s = ints(split);
    PriorityLoads l = loads(new int[] {s[0]}, new int[] {s[1]});
    assertThat(l.healthy).containsExactly(toHealthy);
    assertThat(l.degraded).containsExactly(toDegraded);
  }

  /**
   * Envoy, Panic threshold: healthy percents -> traffic, panic per level and the normalized
   * total health. Two rows are not the page's: for P=0 50% / P=1 60% healthy and 25% / 100%,
   * the page's traffic column says 50/50 and 25/75, which contradicts its own rule (the total
   * health is 100, so no panic and the priority rule holds) and the Priority levels page
   * (50% healthy takes 70%, 25% takes 35%); the rule's figures are asserted there. For 5/65%
   * the page says 7/93; Envoy's code floors 7 and 92 and gives the remainder to P=0: 8/92.
   */
  @ParameterizedTest(name = "healthy {0} -> traffic {1}, panic {2}, total {3}")
  @CsvSource({
      "72/100, 100/0, false/false, 100", "71/100, 99/1, false/false, 100",
      "50/100, 70/30, false/false, 100", "25/100, 35/65, false/false, 100",
      "0/100, 0/100, false/false, 100",
      "72/72, 100/0, false/false, 100", "71/71, 99/1, false/false, 100",
      "50/60, 70/30, false/false, 100",
      "25/25, 50/50, true/true, 70", "5/65, 8/92, true/false, 98"})
  void aLevelPanicsBelowTheThresholdOnlyWhenTheLevelsCannotTakeItAll(String healthy,
      String traffic, String panic, int total) {
    int[] h = ints(healthy);
    PriorityLoads l = loads(h, new int[h.length]);
    assertThat(l.healthy).containsExactly(ints(traffic));
    String[] p = panic.split("/");
    assertThat(l.panic).containsExactly(Boolean.parseBoolean(p[0]), Boolean.parseBoolean(p[1]));
    assertThat(l.totalAvailability).isEqualTo(total);
  }
}

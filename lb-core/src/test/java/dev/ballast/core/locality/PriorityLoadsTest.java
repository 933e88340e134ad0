package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The tables of Envoy's "Priority levels", "Degraded endpoints" and "Panic threshold" pages,
 * row by row, with the default overprovisioning factor (1.4) and panic threshold (50%); each
 * level holds 100 endpoints, so a percent of healthy endpoints is a count.
 */
class PriorityLoadsTest {

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
      "25/100/100, 35/65/0", "25/25/100, 35/35/30", "25/25/20, 36/36/28"})
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
   * (50% healthy takes 70%, 25% takes 35%); the rule's figures are asserted there.
   */
  @ParameterizedTest(name = "healthy {0} -> traffic {1}, panic {2}, total {3}")
  @CsvSource({
      "72/100, 100/0, false/false, 100", "71/100, 99/1, false/false, 100",
      "50/100, 70/30, false/false, 100", "25/100, 35/65, false/false, 100",
      "0/100, 0/100, false/false, 100",
      "72/72, 100/0, false/false, 100", "71/71, 99/1, false/false, 100",
      "50/60, 70/30, false/false, 100",
      "25/25, 50/50, true/true, 70", "5/65, 7/93, true/false, 98"})
  void aLevelPanicsBelowTheThresholdOnlyWhenTheLevelsCannotTakeItAll(String healthy,
      String traffic, String panic, int total) {
    int[] h = ints(healthy);
    PriorityLoads l = loads(h, new int[h.length]);
    assertThat(l.healthy).containsExactly(ints(traffic));
    String[] p = panic.split("/");
    assertThat(l.panic).containsExactly(Boolean.parseBoolean(p[0]), Boolean.parseBoolean(p[1]));
    assertThat(l.totalAvailability).isEqualTo(total);
  }

  @ParameterizedTest(name = "panic threshold {0}")
  @CsvSource({"50, 100, true", "0, 0, false"})
  void withNothingAvailableAllGoesToTheFirstLevelInPanicUnlessPanicIsOff(double threshold,
      int toFirst, boolean panic) {
    PriorityLoads l = PriorityLoads.of(new int[] {10, 10}, new int[2], new int[2], 140, threshold);
    assertThat(l.healthy).containsExactly(toFirst, 0);
    assertThat(l.panic).containsExactly(panic, false);
  }
}

package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The zone-aware cases of Envoy's own unit tests ({@code RoundRobinLoadBalancerTest} in {@code
 * test/extensions/load_balancing_policies/round_robin/round_robin_lb_test.cc}), each figure as
 * Envoy's test expects it. Envoy's tests draw a number in {@code [0, 10000)} for the local share
 * and then one below the last cumulative residual capacity; the boundaries they assert are the
 * local share and the cumulative residuals checked here. Callers are Envoy's local cluster: one
 * caller per host of it.
 */
class ZoneRouteTest {

  /** Localities as {@code zone=healthy} pairs in order, e.g. {@code "A=1 C=3"}. */
  private static ZoneRoute route(String upstream, String localZone, String callers,
      int minClusterSize) {
    String[] ls = upstream.split(" ");
    String[] zones = new String[ls.length];
    int[] healthy = new int[ls.length];
    for (int i = 0; i < ls.length; i++) {
      zones[i] = ls[i].split("=")[0];
      healthy[i] = Integer.parseInt(ls[i].split("=")[1]);
    }
    Map<String, Double> shares = new LinkedHashMap<>();
    for (String c : callers.split(" ")) {
      shares.put(c.split("=")[0], Double.parseDouble(c.split("=")[1]));
    }
    return ZoneRoute.of(zones, healthy, localZone, shares, minClusterSize);
  }

  private static int[] cumulative(ZoneRoute r) {
    int[] out = new int[r.residual.length];
    int sum = 0;
    for (int i = 0; i < out.length; i++) {
      sum += r.residual[i];
      out[i] = sum;
    }
    return out;
  }

  /**
   * {@code ZoneAwareResidualsMismatched}, five zones: callers A 2, B 2, C 1, D 1; upstream A 1,
   * C 3, D 3, E 1. 3750 of 10000 stay in A (37.5%); the rest goes to C for draws 0-2083, D for
   * 2084-4167, E for 4168-5417.
   */
  @Test
  void envoyZoneAwareResidualsMismatched() {
    ZoneRoute r = route("A=1 C=3 D=3 E=1", "A", "A=2 B=2 C=1 D=1", 6);
    assertThat(r.local).isZero();
    assertThat(r.localShare).isEqualTo(3750);
    assertThat(cumulative(r)).containsExactly(0, 2084, 4168, 5418);
  }

  /**
   * {@code ZoneAwareDifferentZoneSize}: callers B 1, A 1; upstream B 1, A 1, C 1, local B: 6666
   * stay in B; the rest all to C, the only zone with residual capacity.
   */
  @Test
  void envoyZoneAwareDifferentZoneSize() {
    ZoneRoute r = route("B=1 A=1 C=1", "B", "B=1 A=1", 3);
    assertThat(r.localShare).isEqualTo(6666);
    assertThat(cumulative(r)).containsExactly(0, 0, 3333);
  }

  /**
   * {@code ZoneAwareRoutingSmallZone}: callers A, B, C one each; upstream A 1, B 2, C 2, local A:
   * 6000 stay in A, the rest splits 667/667 between B and C (draw 2 goes to B).
   */
  @Test
  void envoyZoneAwareRoutingSmallZone() {
    ZoneRoute r = route("A=1 B=2 C=2", "A", "A=1 B=1 C=1", 5);
    assertThat(r.localShare).isEqualTo(6000);
    assertThat(cumulative(r)).containsExactly(0, 667, 1334);
  }

  /**
   * {@code ZoneAwareSmallCluster}: three healthy endpoints under a minimum cluster size of 7:
   * no route; with a minimum of 1, the local zone takes everything.
   */
  @Test
  void envoyZoneAwareSmallCluster() {
    assertThat(route("B=1 A=1 C=1", "B", "B=1 A=1 C=1", 7)).isNull();
    ZoneRoute r = route("B=1 A=1 C=1", "B", "B=1 A=1 C=1", 1);
    assertThat(r.localShare).isEqualTo(ZoneRoute.SCALE);
    assertThat(r.shares()).containsExactly(10_000, 0, 0);
  }

  /**
   * {@code ZoneAwareZonesMismatched}: callers A 1, B 1; upstream A 1, C 1. From A: all local.
   * From B, which has no endpoint: routing still applies, and since A has no residual capacity,
   * everything goes to C.
   */
  @Test
  void envoyZoneAwareZonesMismatched() {
    assertThat(route("A=1 C=1", "A", "A=1 B=1", 2).shares()).containsExactly(10_000, 0);
    ZoneRoute fromB = route("A=1 C=1", "B", "A=1 B=1", 2);
    assertThat(fromB.local).isEqualTo(-1);
    assertThat(fromB.localShare).isZero();
    assertThat(cumulative(fromB)).containsExactly(0, 5000);
  }

  /**
   * {@code ZoneAwareNoMatchingZones}: callers in A, B, C, endpoints in D, E, F: nothing local,
   * draws 0-3332 to D, 3333-6665 to E, 6666-9998 to F (3 × 3333 = 9999).
   */
  @Test
  void envoyZoneAwareNoMatchingZones() {
    ZoneRoute r = route("D=1 E=1 F=1", "A", "A=1 B=1 C=1", 3);
    assertThat(r.localShare).isZero();
    assertThat(cumulative(r)).containsExactly(3333, 6666, 9999);
  }

  /**
   * {@code ZoneAwareEmptyLocalities}: zones without healthy endpoints (A, B, G, I) count for
   * neither share; C 2, E 1, F 2, H 1 healthy; callers A, C, D, F one each: draws 0-832 to C,
   * 833-2498 to E, 2499-3331 to F, 3332-4997 to H.
   */
  @Test
  void envoyZoneAwareEmptyLocalities() {
    ZoneRoute r = route("A=0 B=0 C=2 E=1 F=2 G=0 H=1 I=0", "A", "A=1 C=1 D=1 F=1", 3);
    assertThat(r.localShare).isZero();
    assertThat(cumulative(r)).containsExactly(0, 0, 833, 2499, 3332, 3332, 4998, 4998);
  }

  /**
   * {@code NoZoneAwareNotEnoughLocalZones}, {@code NoZoneAwareNotEnoughUpstreamZones}, {@code
   * NoZoneAwareRoutingNoLocalLocality}, {@code NoZoneAwareRoutingLocalEmpty}: callers in one
   * zone, endpoints in one zone, no caller in the local zone, no callers: no route.
   */
  @Test
  void envoyNoZoneAwareRouting() {
    assertThat(route("A=1 B=1", "A", "A=1", 2)).isNull();
    assertThat(route("A=1", "A", "A=1 B=1", 1)).isNull();
    assertThat(route("A=1 B=1", "A", "B=1 C=1", 1)).isNull();
    assertThat(route("A=1 B=1", "A", "A=0 B=0", 1)).isNull();
  }

  /**
   * {@code LowPrecisionForDistribution}: upstream A 44999, B 55001, callers A 45000, B 55000:
   * 9997 stay in A and B's residual floors to 0, so a spilled pick goes to any zone (Envoy's
   * "no capacity left"); Ballast draws it among the zones with healthy endpoints.
   */
  @Test
  void envoyLowPrecisionForDistribution() {
    ZoneRoute r = route("A=44999 B=55001", "A", "A=45000 B=55000", 1);
    assertThat(r.localShare).isEqualTo(9997);
    assertThat(r.residual).containsExactly(1, 1);
  }
}

package dev.ballast.core.locality;

import java.util.Arrays;

/**
 * Envoy's priority load: the percent of traffic each priority level's healthy and degraded
 * endpoints take, and which levels are in panic, from the levels' endpoint counts. Computed on
 * every update and health change, never on a pick.
 *
 * <p>The arithmetic is that of Envoy's code ({@code LoadBalancerBase::recalculatePerPriorityState},
 * {@code recalculatePerPriorityPanic} and {@code recalculateLoadInTotalPanic} in {@code
 * load_balancer_impl.cc}) and its unit tests, in integers, where its documentation pages round
 * differently:
 *
 * <ul>
 *   <li>A level's health is {@code min(100, factor% × healthy / total)}, floored (1.4: 140 × 1 / 5
 *       = 28); its degraded score is the same over its degraded endpoints.
 *   <li>The normalized total availability is {@code min(100, Σ health + Σ degraded)}.
 *   <li>Levels in order take {@code health × 100 / total availability}, floored and bounded by
 *       what is left of 100; then, from what is left, the degraded scores likewise; what the
 *       floors leave goes to the first level with any health, else to the first with degraded
 *       endpoints (one level of 1 healthy, 2 degraded, 2 unhealthy: 34/66, not 33/67).
 *   <li>While the total availability is 100, no level panics. Below it, a level panics when its
 *       healthy plus degraded percent is below the panic threshold (a level without endpoints
 *       panics whenever the threshold is above 0). When every level panics (total panic), the
 *       levels share the traffic by endpoint count, whatever their health, floored, with the
 *       rest to the first level that has endpoints. When nothing is available and the threshold
 *       is 0, the first level gets 100 and nothing panics, so picks find nothing and fail.
 * </ul>
 *
 * @see <a href="https://github.com/envoyproxy/envoy/blob/main/source/extensions/load_balancing_policies/common/load_balancer_impl.cc">Envoy:
 *     load_balancer_impl.cc</a>
 */
final class PriorityLoads {

  /** Percent of traffic to each level's healthy endpoints (all of it to a level in panic). */
  final int[] healthy;
  /** Percent of traffic to each level's degraded endpoints. */
  final int[] degraded;
  /** Whether each level is in panic. */
  final boolean[] panic;
  /** {@code min(100, Σ health + Σ degraded)}. */
  final int totalAvailability;

  private PriorityLoads(int[] healthy, int[] degraded, boolean[] panic, int totalAvailability) {
    this.healthy = healthy;
    this.degraded = degraded;
    this.panic = panic;
    this.totalAvailability = totalAvailability;
  }

  /**
   * Computes the loads.
   *
   * @param total each level's endpoint count (0 for a level without endpoints)
   * @param healthy each level's healthy endpoints
   * @param degraded each level's degraded endpoints
   * @param factorPercent the overprovisioning factor in percent (140)
   * @param panicThreshold the panic threshold in percent (50); 0 never panics
   */
  static PriorityLoads of(int[] total, int[] healthy, int[] degraded, int factorPercent,
      double panicThreshold) {
    int n = total.length;
    int[] h = new int[n];
    int[] d = new int[n];
    long sum = 0;
    for (int i = 0; i < n; i++) {
      h[i] = score(healthy[i], total[i], factorPercent);
      d[i] = score(degraded[i], total[i], factorPercent);
      sum += h[i] + d[i];
    }
    int availability = (int) Math.min(100, sum);
    int[] hl = new int[n];
    int[] dl = new int[n];
    boolean[] panic = new boolean[n];
    if (availability > 0) {
      int left = distribute(hl, h, 100, availability);
      left = distribute(dl, d, left, availability);
      if (left > 0) {
        int first = firstPositive(h);
        if (first >= 0) {
          hl[first] += left;
        } else {
          dl[firstPositive(d)] += left;
        }
      }
    }
    if (n == 0) {
      return new PriorityLoads(hl, dl, panic, availability);
    }
    if (panicThreshold == 0 && availability == 0) {
      hl[0] = 100;
      return new PriorityLoads(hl, dl, panic, availability);
    }
    boolean all = true;
    for (int i = 0; i < n; i++) {
      panic[i] = availability < 100 && inPanic(total[i], healthy[i], degraded[i], panicThreshold);
      all &= panic[i];
    }
    if (all) {
      byEndpointCount(total, hl, dl);
    }
    return new PriorityLoads(hl, dl, panic, availability);
  }

  /** Whole percents, as Envoy's integer arithmetic: 140 × 71 / 100 = 99. */
  static int score(int available, int total, int factorPercent) {
    return total == 0 ? 0 : (int) Math.min(100, (long) factorPercent * available / total);
  }

  // Envoy adds the two percents as doubles before comparing; so do we, to the last bit.
  private static boolean inPanic(int total, int healthy, int degraded, double threshold) {
    double h = total == 0 ? 0.0 : 100.0 * healthy / total;
    double d = total == 0 ? 0.0 : 100.0 * degraded / total;
    return h + d < threshold;
  }

  private static int distribute(int[] load, int[] score, int left, int availability) {
    for (int i = 0; i < score.length; i++) {
      load[i] = Math.min(left, score[i] * 100 / availability);
      left -= load[i];
    }
    return left;
  }

  /** Total panic: every level takes its share of all endpoints, whatever their health. */
  private static void byEndpointCount(int[] total, int[] hl, int[] dl) {
    long all = 0;
    for (int t : total) {
      all += t;
    }
    Arrays.fill(dl, 0);
    if (all == 0) {
      Arrays.fill(hl, 0);
      hl[0] = 100;
      return;
    }
    int left = 100;
    int first = -1;
    for (int i = 0; i < total.length; i++) {
      hl[i] = (int) (100L * total[i] / all);
      left -= hl[i];
      if (first < 0 && total[i] > 0) {
        first = i;
      }
    }
    hl[first] += left;
  }

  private static int firstPositive(int[] a) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] > 0) {
        return i;
      }
    }
    return -1;
  }
}

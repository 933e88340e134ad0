package dev.ballast.core.locality;

/**
 * Envoy's priority load: the percent of traffic each priority level's healthy and degraded
 * endpoints take, and which levels are in panic, from the levels' endpoint counts. Computed on
 * every update and health change, never on a pick.
 *
 * <p>The rules (Envoy, "Priority levels", "Degraded endpoints", "Panic threshold"):
 *
 * <ul>
 *   <li>A level's health is {@code min(100, factor% × healthy / total)} in whole percents (1.4:
 *       140 × 50 / 100 = 70); its degraded score is the same over its degraded endpoints.
 *   <li>The normalized total availability is {@code min(100, Σ health + Σ degraded)}.
 *   <li>Levels in order take {@code health × 100 / total availability}, rounded to the nearest
 *       percent and bounded by what is left of 100; then, from what is left, the degraded scores
 *       likewise; a remainder of rounding goes to the first level with any health (else the first
 *       with degraded endpoints). Rounding to the nearest, not down, is what gives the documented
 *       tables (25/25/20% healthy: 36/36/28; 5/65%: 7/93).
 *   <li>While the total availability is 100, no level panics. Below it, a level whose available
 *       (healthy or degraded) endpoints are fewer than the panic threshold percent of its own
 *       panics: its share goes to all its endpoints, whatever their health. When nothing is
 *       available, all traffic goes to the first level in panic, or fails if the threshold is 0.
 * </ul>
 *
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/priority">Envoy:
 *     priority levels</a>
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/degraded">Envoy:
 *     degraded endpoints</a>
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/panic_threshold">Envoy:
 *     panic threshold</a>
 */
final class PriorityLoads {

  /** Percent of traffic to each level's healthy endpoints. */
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
   * @param total each level's endpoint count, at least 1
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
    if (availability == 0) {
      if (panicThreshold > 0 && n > 0) {
        hl[0] = 100;
        panic[0] = true;
      }
      return new PriorityLoads(hl, dl, panic, 0);
    }
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
    for (int i = 0; availability < 100 && i < n; i++) {
      panic[i] = 100.0 * (healthy[i] + degraded[i]) < panicThreshold * total[i];
    }
    return new PriorityLoads(hl, dl, panic, availability);
  }

  /** Whole percents, as Envoy's integer arithmetic: 140 × 71 / 100 = 99. */
  static int score(int available, int total, int factorPercent) {
    return total == 0 ? 0 : (int) Math.min(100, (long) factorPercent * available / total);
  }

  private static int distribute(int[] load, int[] score, int left, int availability) {
    for (int i = 0; i < score.length; i++) {
      load[i] = Math.min(left, (score[i] * 100 + availability / 2) / availability);
      left -= load[i];
    }
    return left;
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

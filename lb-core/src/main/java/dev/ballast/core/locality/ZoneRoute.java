package dev.ballast.core.locality;

import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Envoy's zone-aware routing for one caller: how much of its traffic stays in its own zone, and
 * how the rest spills over the other zones, from the share of the first priority's healthy
 * endpoints in each zone (upstream) and the share of the callers in each zone. Shares are in
 * ten-thousandths, as Envoy computes them.
 *
 * <ul>
 *   <li>If the local zone's upstream share is at least its caller share, the local zone can take
 *       all of this caller's traffic: everything stays local.
 *   <li>Otherwise only {@code upstream[local] / callers[local]} stays local (each zone then gets
 *       traffic in proportion to its endpoints), and the rest goes to the other zones in
 *       proportion to their residual capacity, {@code max(0, upstream[z] - callers[z])}: what a
 *       zone can take beyond its own callers' traffic.
 * </ul>
 *
 * <p>Summed over the callers of every zone, each zone then gets its upstream share: the same
 * load per endpoint, with as little cross-zone traffic as that allows.
 *
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/zone_aware">Envoy:
 *     zone aware routing</a>
 */
final class ZoneRoute {

  /** Shares are in ten-thousandths. */
  static final int SCALE = 10_000;

  /** The local locality's index, or -1 when no healthy endpoint is in the local zone. */
  final int local;
  /** Ten-thousandths of the picks that stay local; {@link #SCALE}: all. */
  final int localShare;
  /** Cumulative residual capacity by locality index (0 for the local one); null if all local. */
  final int[] residual;
  private final int localities;

  private ZoneRoute(int local, int localShare, int[] residual, int localities) {
    this.local = local;
    this.localShare = localShare;
    this.residual = residual;
    this.localities = localities;
  }

  /**
   * Computes the route.
   *
   * @param zones the localities' zones, by index (null for endpoints naming no zone)
   * @param healthy each locality's healthy endpoints in the first priority, at least one in all
   * @param localZone the caller's zone
   * @param callers the callers' shares by zone, in any unit
   */
  static ZoneRoute of(String[] zones, int[] healthy, String localZone,
      Map<String, Double> callers) {
    long totalHealthy = 0;
    for (int h : healthy) {
      totalHealthy += h;
    }
    double totalCallers = 0;
    for (double s : callers.values()) {
      totalCallers += s;
    }
    int local = -1;
    int[] upstream = new int[zones.length];
    for (int i = 0; i < zones.length; i++) {
      upstream[i] = (int) (healthy[i] * (long) SCALE / totalHealthy);
      if (localZone.equals(zones[i]) && healthy[i] > 0) {
        local = i;
      }
    }
    int callersLocal = callerShare(callers, localZone, totalCallers);
    if (local >= 0 && upstream[local] >= callersLocal) {
      return new ZoneRoute(local, SCALE, null, zones.length);
    }
    int localShare = local < 0 ? 0 : upstream[local] * SCALE / callersLocal;
    int[] residual = new int[zones.length];
    int sum = 0;
    for (int i = 0; i < zones.length; i++) {
      if (i != local) {
        sum += Math.max(0, upstream[i] - callerShare(callers, zones[i], totalCallers));
      }
      residual[i] = sum;
    }
    if (sum == 0) { // rounding left no residual: spill by the zones' upstream shares
      for (int i = 0; i < zones.length; i++) {
        sum += i != local ? upstream[i] : 0;
        residual[i] = sum;
      }
    }
    return new ZoneRoute(local, sum == 0 ? SCALE : localShare, sum == 0 ? null : residual,
        zones.length);
  }

  private static int callerShare(Map<String, Double> callers, String zone, double total) {
    Double s = zone == null ? null : callers.get(zone);
    return s == null ? 0 : (int) (s / total * SCALE);
  }

  /** Returns the locality index a pick goes to. Allocation-free. */
  int choose(RandomGenerator random) {
    if (localShare == SCALE || localShare > 0 && random.nextInt(SCALE) < localShare) {
      return local;
    }
    int x = random.nextInt(residual[residual.length - 1]);
    int i = 0;
    while (x >= residual[i]) {
      i++;
    }
    return i;
  }

  /** Returns the share of picks going to each locality, in ten-thousandths (for tests, stats). */
  int[] shares() {
    int[] out = new int[localities];
    if (residual == null) {
      out[local] = SCALE;
      return out;
    }
    int spill = SCALE - localShare;
    int total = residual[residual.length - 1];
    for (int i = 0, prev = 0; i < out.length; i++) {
      out[i] = (int) ((long) spill * (residual[i] - prev) / total);
      prev = residual[i];
    }
    if (local >= 0) {
      out[local] += localShare;
    }
    return out;
  }
}

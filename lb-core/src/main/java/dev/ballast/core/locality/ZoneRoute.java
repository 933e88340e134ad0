package dev.ballast.core.locality;

import dev.ballast.core.config.Names;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Envoy's zone-aware routing for one caller, as its code computes it ({@code
 * ZoneAwareLoadBalancerBase::regenerateLocalityRoutingStructures}, {@code
 * calculateLocalityPercentages} and {@code tryChooseLocalLocalityHosts} in {@code
 * load_balancer_impl.cc}): how much of its traffic stays in its own zone, and how the rest spills
 * over the other zones, from each zone's share of priority 0's healthy endpoints (upstream) and
 * its share of the callers. Shares are in ten-thousandths, floored, as Envoy computes them.
 *
 * <ul>
 *   <li>No route at all (the level's healthy endpoints are picked by weight, ignoring zones)
 *       when the level has fewer than two zones, the callers are in fewer than two zones, no
 *       caller is in the local zone (so a local zone the callers do not list means "no local
 *       zone"), or the level has fewer healthy endpoints than the minimum cluster size.
 *   <li>If the local zone has healthy endpoints and its upstream share is at least its caller
 *       share, everything stays local.
 *   <li>Otherwise {@code upstream[local] × 10000 / callers[local]} stays local (none if the local
 *       zone has no endpoints), and the rest goes to the other zones in proportion to their
 *       residual capacity, {@code upstream[z] - callers[z]} where positive. When rounding leaves
 *       no residual anywhere, Envoy picks any zone uniformly (one without healthy endpoints
 *       then fails the pick); Ballast picks uniformly among the zones with healthy endpoints.
 * </ul>
 *
 * <p>Summed over the callers of every zone, each zone then gets its upstream share: the same
 * load per endpoint, with as little cross-zone traffic as that allows.
 */
final class ZoneRoute {

  /** Shares are in ten-thousandths. */
  static final int SCALE = 10_000;

  /** The local locality's index, or -1 when the level has no endpoint in the local zone. */
  final int local;
  /** Ten-thousandths of the picks that stay local; {@link #SCALE}: all. */
  final int localShare;
  /** Each locality's residual capacity (0 for the local one); null if all stay local. */
  final int[] residual;
  private final int[] cumulative;
  private final int localities;

  private ZoneRoute(int local, int localShare, int[] residual, int localities) {
    this.local = local;
    this.localities = localities;
    this.localShare = localShare;
    this.residual = residual;
    if (residual == null) {
      this.cumulative = null;
    } else {
      this.cumulative = new int[residual.length];
      int sum = 0;
      for (int i = 0; i < residual.length; i++) {
        sum += residual[i];
        cumulative[i] = sum;
      }
    }
  }

  /**
   * Returns why zone-aware routing does not apply to the level (when {@link #of} returns null),
   * for the operator's log, or null when it applies; arguments as {@link #of}'s.
   */
  static String offReason(String[] zones, int[] healthy, String localZone,
      Map<String, Double> callers, int minClusterSize) {
    long totalHealthy = 0;
    for (int h : healthy) {
      totalHealthy += h;
    }
    int callerZones = 0;
    for (double s : callers.values()) {
      callerZones += s > 0 ? 1 : 0;
    }
    return offReason(zones, totalHealthy, localZone, callers, callerZones, minClusterSize);
  }

  private static String offReason(String[] zones, long totalHealthy, String localZone,
      Map<String, Double> callers, int callerZones, int minClusterSize) {
    Double own = callers.get(localZone);
    if (own == null || own == 0) {
      String near = own != null ? null : callers.keySet().stream()
          .filter(z -> Names.same(z, localZone)).findFirst().orElse(null);
      return "callerZones " + new TreeMap<>(callers) + " give the local zone no share"
          + (near == null ? "" : " (zones are compared exactly: did you mean " + near + "?)");
    } else if (callerZones < 2) {
      return "callerZones " + new TreeMap<>(callers) + " give a share to one zone only";
    } else if (zones.length < 2) {
      return "priority 0's endpoints are in fewer than two zones";
    } else if (totalHealthy == 0) {
      return "priority 0 has no healthy endpoint";
    } else if (totalHealthy < minClusterSize) {
      return "priority 0 has " + totalHealthy + " healthy endpoints, fewer than minClusterSize "
          + minClusterSize;
    }
    return null;
  }

  /**
   * Computes the route, or returns null when zone-aware routing does not apply.
   *
   * @param zones the level's localities' zones, by index (null for endpoints naming no zone)
   * @param healthy each locality's healthy endpoints
   * @param localZone the caller's zone
   * @param callers the callers' shares by zone, finite and non-negative, in any unit
   * @param minClusterSize the fewest healthy endpoints in the level for a route
   */
  static ZoneRoute of(String[] zones, int[] healthy, String localZone,
      Map<String, Double> callers, int minClusterSize) {
    long totalHealthy = 0;
    int local = -1;
    for (int i = 0; i < zones.length; i++) {
      totalHealthy += healthy[i];
      if (localZone.equals(zones[i])) {
        local = i;
      }
    }
    double max = 0;
    int callerZones = 0;
    for (double s : callers.values()) {
      max = Math.max(max, s);
      callerZones += s > 0 ? 1 : 0;
    }
    if (offReason(zones, totalHealthy, localZone, callers, callerZones, minClusterSize) != null) {
      return null;
    }
    // Shares of up to Double.MAX_VALUE each would overflow their sum: scale them by a power of
    // two, which is exact, so the floors below are those of the unscaled shares.
    int shift = Math.getExponent(max) > 512 ? -Math.getExponent(max) : 0;
    double totalCallers = 0;
    for (double s : callers.values()) {
      totalCallers += Math.scalb(s, shift);
    }
    int[] upstream = new int[zones.length];
    int[] caller = new int[zones.length];
    for (int i = 0; i < zones.length; i++) {
      if (healthy[i] == 0) {
        continue; // Envoy counts neither share for a locality without healthy endpoints
      }
      upstream[i] = (int) (SCALE * (long) healthy[i] / totalHealthy);
      Double s = zones[i] == null ? null : callers.get(zones[i]);
      caller[i] = s == null ? 0 : (int) (SCALE * Math.scalb(s, shift) / totalCallers);
    }
    if (local >= 0 && upstream[local] > 0 && upstream[local] >= caller[local]) {
      return new ZoneRoute(local, SCALE, null, zones.length);
    }
    int localShare = local >= 0 && caller[local] > 0 ? upstream[local] * SCALE / caller[local]
        : 0;
    int[] residual = new int[zones.length];
    int sum = 0;
    for (int i = 0; i < zones.length; i++) {
      if (i != local && upstream[i] > caller[i]) {
        residual[i] = upstream[i] - caller[i];
        sum += residual[i];
      }
    }
    if (sum == 0) { // rounding left no residual capacity: any zone with healthy endpoints
      for (int i = 0; i < zones.length; i++) {
        residual[i] = healthy[i] > 0 ? 1 : 0;
      }
    }
    return new ZoneRoute(local, localShare, residual, zones.length);
  }

  /** Returns the locality index a pick goes to. Allocation-free. */
  int choose(RandomGenerator random) {
    if (localShare == SCALE || localShare > 0 && random.nextInt(SCALE) < localShare) {
      return local;
    }
    int x = random.nextInt(cumulative[cumulative.length - 1]);
    int i = 0;
    while (x >= cumulative[i]) {
      i++;
    }
    return i;
  }

  /**
   * Returns the share of picks going to each locality, in ten-thousandths, floored (for tests
   * and stats).
   */
  int[] shares() {
    int[] out = new int[localities];
    if (residual == null) {
      out[local] = SCALE;
      return out;
    }
    int spill = SCALE - localShare;
    int total = cumulative[cumulative.length - 1];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) ((long) spill * residual[i] / total);
    }
    if (local >= 0) {
      out[local] += localShare;
    }
    return out;
  }
}

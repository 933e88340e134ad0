package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Thousands of seeded clusters (1-5 priority levels of 0-20 endpoints, mixed health and weights,
 * 1-4 zones and endpoints without one, overprovisioning 1.0-2.0, panic threshold 0, 50 or 100,
 * caller shares that are counts or counts times 2^1000 and more) against {@link Envoy}, a model
 * of Envoy's arithmetic written here from Envoy's code alone ({@code load_balancer_impl.cc},
 * {@code locality_wrr.cc}), in its shapes: dense priorities, host lists per locality with the
 * local one first, a local cluster of caller hosts. Loads, panic flags, locality weights and
 * zone routes must be equal to the last bit; a few picks per cluster must land where the loads
 * allow.
 */
class EnvoyParityPropertyTest {

  private static final int CLUSTERS = 2000;
  private static final String[] ZONES = {"a", "b", "c", "d"};

  /** One upstream host as Envoy sees it. */
  record Host(String zone, Health health, int weight) {}

  /** How a level's endpoints of one health are picked: its kind and the figures behind it. */
  record Choice(String kind, String localZone, int localShare, Map<String, Integer> residual,
      Map<String, Double> weights) {}

  @Test
  void ballastComputesWhatEnvoysCodeComputes() {
    SplittableRandom r = new SplittableRandom(44);
    int routed = 0;
    int totalPanics = 0;
    int noRoute = 0;
    int spilled = 0;
    for (int c = 0; c < CLUSTERS; c++) {
      Envoy envoy = new Envoy(r);
      LocalityBalancer<String> b = LocalityBalancer.<String>builder()
          .config(BalancerConfig.builder().random(new SplittableRandom(c)).build())
          .locality(envoy.config()).build();
      b.update(envoy.endpoints(), Endpoint::address);
      String where = "cluster " + c + ": " + envoy;
      LocalityPlan<String> plan = b.plan();
      if (plan.priorities.length == 0) {
        assertThatThrownBy(b::pickUncounted).isInstanceOf(NoAvailableEndpointException.class);
        continue;
      }
      boolean failsAll = envoy.threshold == 0 && envoy.availability == 0;
      for (int p = 0; p < envoy.levels.size(); p++) {
        int at = indexOf(plan.priorities, p);
        if (at < 0) {
          assertThat(envoy.healthyLoad[p] + envoy.degradedLoad[p]).as(where).isZero();
          continue;
        }
        if (!failsAll) {
          assertThat(plan.loads.healthy[at]).as(where + " healthy load P" + p)
              .isEqualTo(envoy.healthyLoad[p]);
          assertThat(plan.loads.degraded[at]).as(where + " degraded load P" + p)
              .isEqualTo(envoy.degradedLoad[p]);
        }
        assertThat(plan.loads.panic[at]).as(where + " panic P" + p).isEqualTo(envoy.panic[p]);
        if (!envoy.panic[p]) {
          LocalityPlan.Level<String> level = plan.levels[at];
          assertThat(choice(level.healthy)).as(where + " healthy P" + p)
              .isEqualTo(envoy.choice(p, Health.HEALTHY));
          assertThat(choice(level.degraded)).as(where + " degraded P" + p)
              .isEqualTo(envoy.choice(p, Health.DEGRADED));
          routed += level.healthy.route != null ? 1 : 0;
          spilled += level.healthy.route != null && level.healthy.route.residual != null ? 1 : 0;
          noRoute += envoy.zoneAware && p == 0 && level.healthy.route == null ? 1 : 0;
        }
      }
      totalPanics += envoy.totalPanic ? 1 : 0;
      for (int i = 0; i < 8; i++) {
        if (failsAll) {
          assertThatThrownBy(b::pickUncounted).as(where)
              .isInstanceOf(NoAvailableEndpointException.class);
          break;
        }
        Node<String> n = b.pickUncounted();
        int p = n.endpoint().priority();
        assertThat(envoy.healthyLoad[p] + envoy.degradedLoad[p]).as(where).isPositive();
        if (!envoy.panic[p]) {
          assertThat(n.health()).as(where).isNotEqualTo(Health.UNHEALTHY);
        }
      }
    }
    // the generator reaches every branch often enough to matter
    // (seed 44 over 3,000 clusters gave 564 routes of which 405 spill, 1112 zone-aware levels
    // without a route, 110 total panics; each bound is at most about half its rate)
    assertThat(routed).isGreaterThan(CLUSTERS / 10);
    assertThat(spilled).isGreaterThan(CLUSTERS / 20);
    assertThat(noRoute).isGreaterThan(CLUSTERS / 10);
    assertThat(totalPanics).isGreaterThan(CLUSTERS / 50);
  }

  private static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }

  /** Ballast's group, in the model's terms. */
  private static Choice choice(LocalityPlan.Group<String> g) {
    if (g.route != null) {
      Map<String, Integer> residual = new HashMap<>();
      for (int i = 0; i < g.zones.length; i++) {
        residual.put(g.zones[i], g.route.residual == null ? 0 : g.route.residual[i]);
      }
      return new Choice("route", g.route.local < 0 ? null : g.zones[g.route.local],
          g.route.localShare, residual, null);
    }
    if (g.weights != null) {
      Map<String, Double> weights = new HashMap<>();
      for (int i = 0; i < g.zones.length; i++) {
        weights.put(g.zones[i], g.weights[i]);
      }
      return new Choice("weighted", null, 0, null, weights);
    }
    return new Choice("hosts", null, 0, null, null);
  }

  /** Envoy's arithmetic over one generated cluster, computed as its code does. */
  static final class Envoy {
    final List<List<Host>> levels = new ArrayList<>();
    final int factor;
    final int threshold;
    final boolean zoneAware;
    final String localZone;
    final Map<String, Long> callerCounts = new TreeMap<>();
    final int callerScale;
    final int minClusterSize;
    int[] healthyLoad;
    int[] degradedLoad;
    boolean[] panic;
    int availability;
    boolean totalPanic;

    Envoy(SplittableRandom r) {
      int count = 1 + r.nextInt(5);
      int zones = 1 + r.nextInt(4);
      for (int p = 0; p < count; p++) {
        List<Host> hosts = new ArrayList<>();
        int n = r.nextInt(21);
        int healthy = r.nextInt(101);
        int degraded = r.nextInt(101 - healthy);
        for (int i = 0; i < n; i++) {
          int x = r.nextInt(100);
          Health h = x < healthy ? Health.HEALTHY
              : x < healthy + degraded ? Health.DEGRADED : Health.UNHEALTHY;
          String zone = r.nextInt(12) == 0 ? null : ZONES[r.nextInt(zones)];
          hosts.add(new Host(zone, h, r.nextInt(3) == 0 ? 1 + r.nextInt(5) : 1));
        }
        levels.add(hosts);
      }
      factor = 100 + r.nextInt(101);
      threshold = new int[] {0, 50, 100}[r.nextInt(3)];
      zoneAware = r.nextInt(5) < 3;
      localZone = zoneAware ? new String[] {"a", "b", "c", "d", "x"}[r.nextInt(5)] : null;
      if (zoneAware) {
        for (String z : new String[] {"a", "b", "c", "d", "x"}) {
          if (r.nextInt(4) > 0) {
            callerCounts.put(z, (long) r.nextInt(11));
          }
        }
        if (callerCounts.values().stream().allMatch(v -> v == 0)) {
          callerCounts.put(localZone, 1L + r.nextInt(5));
        }
      }
      callerScale = r.nextInt(4) == 0 ? 1000 + r.nextInt(21) : 0;
      minClusterSize = r.nextInt(9);
      computeLoads();
    }

    LocalityConfig config() {
      LocalityConfig.Builder b = LocalityConfig.builder()
          .overprovisioningFactor(factor / 100.0).panicThreshold(threshold)
          .minClusterSize(minClusterSize);
      if (zoneAware) {
        Map<String, Double> shares = new HashMap<>();
        callerCounts.forEach((z, n) -> shares.put(z, Math.scalb((double) n, callerScale)));
        b.localZone(localZone).callerZones(shares);
      }
      return b.build();
    }

    List<Endpoint> endpoints() {
      List<Endpoint> out = new ArrayList<>();
      for (int p = 0; p < levels.size(); p++) {
        for (int i = 0; i < levels.get(p).size(); i++) {
          Host h = levels.get(p).get(i);
          out.add(Endpoint.parse("10.0." + p + "." + i + ":80;priority=" + p + ";weight="
              + h.weight() + ";health=" + h.health().toString().toLowerCase()
              + (h.zone() == null ? "" : ";zone=" + h.zone())));
        }
      }
      return out;
    }

    private long count(int p, Health health) {
      return levels.get(p).stream().filter(h -> h.health() == health).count();
    }

    /** recalculatePerPriorityState, recalculatePerPriorityPanic, recalculateLoadInTotalPanic. */
    private void computeLoads() {
      int n = levels.size();
      int[] health = new int[n];
      int[] degraded = new int[n];
      healthyLoad = new int[n];
      degradedLoad = new int[n];
      panic = new boolean[n];
      int sum = 0;
      for (int p = 0; p < n; p++) {
        long hosts = levels.get(p).size();
        if (hosts > 0) {
          health[p] = (int) Math.min(100, factor * count(p, Health.HEALTHY) / hosts);
          degraded[p] = (int) Math.min(100, factor * count(p, Health.DEGRADED) / hosts);
        }
        sum += health[p] + degraded[p];
      }
      availability = Math.min(100, sum);
      if (availability > 0) {
        int load = 100;
        int firstHealthy = -1;
        for (int p = 0; p < n; p++) {
          firstHealthy = firstHealthy < 0 && health[p] > 0 ? p : firstHealthy;
          healthyLoad[p] = Math.min(load, health[p] * 100 / availability);
          load -= healthyLoad[p];
        }
        int firstDegraded = -1;
        for (int p = 0; p < n; p++) {
          firstDegraded = firstDegraded < 0 && degraded[p] > 0 ? p : firstDegraded;
          degradedLoad[p] = Math.min(load, degraded[p] * 100 / availability);
          load -= degradedLoad[p];
        }
        if (load != 0) {
          if (firstHealthy != -1) {
            healthyLoad[firstHealthy] += load;
          } else {
            degradedLoad[firstDegraded] += load;
          }
        }
      }
      if (threshold == 0 && availability == 0) {
        healthyLoad[0] = 100;
        return;
      }
      totalPanic = true;
      for (int p = 0; p < n; p++) {
        long hosts = levels.get(p).size();
        double healthyPercent = hosts == 0 ? 0.0 : 100.0 * count(p, Health.HEALTHY) / hosts;
        double degradedPercent = hosts == 0 ? 0.0 : 100.0 * count(p, Health.DEGRADED) / hosts;
        panic[p] = availability != 100 && healthyPercent + degradedPercent < threshold;
        totalPanic &= panic[p];
      }
      if (totalPanic) {
        long all = levels.stream().mapToLong(List::size).sum();
        if (all == 0) { // no host at all: the load must go somewhere
          healthyLoad[0] = 100;
          return;
        }
        int load = 100;
        int firstNonEmpty = -1;
        for (int p = 0; p < n; p++) {
          long hosts = levels.get(p).size();
          firstNonEmpty = firstNonEmpty < 0 && hosts > 0 ? p : firstNonEmpty;
          healthyLoad[p] = (int) (100 * hosts / all);
          degradedLoad[p] = 0;
          load -= healthyLoad[p];
        }
        healthyLoad[firstNonEmpty] += load;
      }
    }

    /** How Envoy picks level {@code p}'s endpoints of {@code health} (when not in panic). */
    Choice choice(int p, Health health) {
      List<Host> hosts = levels.get(p);
      if (!zoneAware) {
        return localityWeighted(hosts, health);
      }
      if (p != 0 || health != Health.HEALTHY) {
        // no locality routing latched for P!=0; degraded picks by weight over the level: the
        // one place Ballast keeps its own way (Envoy would follow the healthy route into a
        // locality that may hold no degraded host and fail the pick)
        return new Choice("hosts", null, 0, null, null);
      }
      return zoneRoute(hosts);
    }

    /** LocalityWrr with each locality's weight the sum of its hosts' weights. */
    private Choice localityWeighted(List<Host> hosts, Health eligible) {
      Map<String, long[]> perLocality = new LinkedHashMap<>(); // weight, hosts, eligible
      for (Host h : hosts) {
        long[] l = perLocality.computeIfAbsent(h.zone(), z -> new long[3]);
        l[0] += h.weight();
        l[1]++;
        l[2] += h.health() == eligible ? 1 : 0;
      }
      Map<String, Double> weights = new HashMap<>();
      boolean any = false;
      for (Map.Entry<String, long[]> e : perLocality.entrySet()) {
        long[] l = e.getValue();
        double ratio = 1.0 * l[2] / l[1];
        double effective = l[0] * Math.min(1.0, (factor / 100.0) * ratio);
        weights.put(e.getKey(), effective);
        any |= effective > 0;
      }
      return any ? new Choice("weighted", null, 0, null, weights)
          : new Choice("hosts", null, 0, null, null);
    }

    /** regenerateLocalityRoutingStructures over calculateLocalityPercentages. */
    private Choice zoneRoute(List<Host> p0) {
      // the upstream's localities: local first when any host of P=0 is in the local zone
      List<String> localities = new ArrayList<>();
      Map<String, Integer> healthyIn = new HashMap<>();
      for (Host h : p0) {
        if (!healthyIn.containsKey(h.zone())) {
          localities.add(h.zone());
          healthyIn.put(h.zone(), 0);
        }
        healthyIn.merge(h.zone(), h.health() == Health.HEALTHY ? 1 : 0, Integer::sum);
      }
      boolean upstreamHasLocal = localities.remove(localZone);
      if (upstreamHasLocal) {
        localities.add(0, localZone);
      }
      long callerLocalities = callerCounts.values().stream().filter(v -> v > 0).count();
      long localCallers = callerCounts.getOrDefault(localZone, 0L);
      long healthyHosts = healthyIn.values().stream().mapToLong(Integer::longValue).sum();
      if (localities.size() < 2 || callerLocalities < 2 || localCallers == 0
          || healthyHosts < minClusterSize || healthyHosts == 0) {
        return new Choice("hosts", null, 0, null, null); // earlyExitNonLocalityRouting
      }
      long totalCallers = callerCounts.values().stream().mapToLong(Long::longValue).sum();
      long[] local = new long[localities.size()];
      long[] upstream = new long[localities.size()];
      for (int i = 0; i < localities.size(); i++) {
        int h = healthyIn.get(localities.get(i));
        if (h == 0) {
          continue;
        }
        String zone = localities.get(i);
        long callers = zone == null ? 0 : callerCounts.getOrDefault(zone, 0L);
        local[i] = 10000 * callers / totalCallers;
        upstream[i] = 10000L * h / healthyHosts;
      }
      Map<String, Integer> residual = new HashMap<>();
      localities.forEach(z -> residual.put(z, 0));
      if (upstreamHasLocal && upstream[0] > 0 && upstream[0] >= local[0]) {
        return new Choice("route", localZone, 10000, residual, null);
      }
      int localPercent = upstreamHasLocal && local[0] > 0
          ? (int) (upstream[0] * 10000 / local[0]) : 0;
      long capacity = 0;
      for (int i = upstreamHasLocal ? 1 : 0; i < localities.size(); i++) {
        if (upstream[i] > local[i]) {
          residual.put(localities.get(i), (int) (upstream[i] - local[i]));
          capacity += upstream[i] - local[i];
        }
      }
      if (capacity == 0) { // Envoy: any locality; Ballast: any with healthy hosts
        localities.forEach(z -> residual.put(z, healthyIn.get(z) > 0 ? 1 : 0));
      }
      return new Choice("route", upstreamHasLocal ? localZone : null, localPercent, residual,
          null);
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder("factor=" + factor + " threshold=" + threshold
          + " min=" + minClusterSize);
      if (zoneAware) {
        s.append(" local=").append(localZone).append(" callers=").append(callerCounts)
            .append("x2^").append(callerScale);
      }
      for (int p = 0; p < levels.size(); p++) {
        s.append(" P").append(p).append('[');
        for (Host h : levels.get(p)) {
          s.append(h.zone()).append(':').append(h.health().toString().charAt(0))
              .append(h.weight()).append(' ');
        }
        s.append(']');
      }
      return s.toString();
    }
  }
}

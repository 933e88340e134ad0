package dev.ballast.core.locality;

import dev.ballast.core.Balancer;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.ChildBalancer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One immutable version of a {@link LocalityBalancer}'s tables, made on every update and health
 * change and read by picks: the priority levels and their loads ({@link PriorityLoads}), and in
 * each level, for its healthy and its degraded endpoints, how a pick chooses among them.
 *
 * <p>Without zone-aware routing, a locality is chosen by its effective weight, as Envoy's
 * locality weighted load balancing ({@code LocalityWrr::effectiveLocalityWeight}): its
 * endpoints' summed weight times {@code min(1, factor × available / total)}, in doubles as Envoy
 * computes it. With zone-aware routing, priority 0's healthy endpoints follow the {@link
 * ZoneRoute} when it applies; every other pick (other levels, degraded endpoints, priority 0
 * when the route does not apply) goes to the level's endpoints of that health by weight,
 * ignoring zones, as Envoy's zone-aware balancer does.
 *
 * @param <T> the thing being balanced
 */
final class LocalityPlan<T> {

  final Node<T>[] nodes;
  /** Each level's priority label value, in order (0 first). */
  final int[] priorities;
  final PriorityLoads loads;
  final Level<T>[] levels;
  /**
   * Cumulative percents: first each level's healthy load, then each level's degraded load; the
   * last is 100 (empty when there is no endpoint).
   */
  final int[] cumulative;
  /** The balancer's count of health changes when the plan was made. */
  final int epoch;
  /** The caller's zone of the configuration, or null. */
  final String localZone;
  /**
   * Why zone-aware routing, asked for by a local zone, does not apply to this plan, or null
   * (not asked for, or it applies).
   */
  final String zoneOff;

  @SuppressWarnings("unchecked")
  LocalityPlan(Node<T>[] nodes, LocalityConfig config,
      Supplier<? extends ChildBalancer<T>> factory, int epoch) {
    this.nodes = nodes;
    this.epoch = epoch;
    Map<Integer, List<Node<T>>> byPriority = new TreeMap<>();
    for (Node<T> n : nodes) {
      byPriority.computeIfAbsent(n.endpoint().priority(), p -> new ArrayList<>()).add(n);
    }
    int count = byPriority.size();
    priorities = new int[count];
    levels = new Level[count];
    int[] total = new int[count];
    int[] healthy = new int[count];
    int[] degraded = new int[count];
    int at = 0;
    for (Map.Entry<Integer, List<Node<T>>> e : byPriority.entrySet()) {
      priorities[at] = e.getKey();
      total[at] = e.getValue().size();
      for (Node<T> n : e.getValue()) {
        healthy[at] += n.health() == Health.HEALTHY ? 1 : 0;
        degraded[at] += n.health() == Health.DEGRADED ? 1 : 0;
      }
      at++;
    }
    int factor = (int) Math.round(config.overprovisioningFactor() * 100);
    loads = PriorityLoads.of(total, healthy, degraded, factor, config.panicThreshold());
    at = 0;
    for (List<Node<T>> members : byPriority.values()) {
      levels[at] = new Level<>(members, loads.panic[at], factor, config,
          priorities[at] == 0, factory);
      at++;
    }
    localZone = config.localZone();
    zoneOff = localZone == null ? null
        : !config.zoneAware() ? "localZone given without callerZones"
        : count == 0 || priorities[0] != 0 ? "no endpoint at priority 0"
        : levels[0].healthy.routeOff;
    cumulative = new int[2 * count];
    int sum = 0;
    for (int i = 0; i < 2 * count; i++) {
      sum += i < count ? loads.healthy[i] : loads.degraded[i - count];
      cumulative[i] = sum;
    }
  }

  /** One priority level: its endpoints, and its healthy and degraded groups. */
  static final class Level<T> {
    final boolean panic;
    final Group<T> healthy;
    final Group<T> degraded;
    // in panic: every endpoint of the level, picked by weight whatever its health
    private final Node<T>[] all;
    private final long[] cumulativeWeight;

    @SuppressWarnings("unchecked")
    Level(List<Node<T>> members, boolean panic, int factor, LocalityConfig config,
        boolean priorityZero, Supplier<? extends ChildBalancer<T>> factory) {
      this.panic = panic;
      this.all = members.toArray(new Node[0]);
      this.cumulativeWeight = new long[all.length];
      long w = 0;
      for (int i = 0; i < all.length; i++) {
        w += all[i].weight();
        cumulativeWeight[i] = w;
      }
      Map<String, List<Node<T>>> byZone = new LinkedHashMap<>();
      for (Node<T> n : members) {
        byZone.computeIfAbsent(n.endpoint().zone(), z -> new ArrayList<>()).add(n);
      }
      boolean zoneAware = config.zoneAware();
      this.healthy = new Group<>(byZone, Health.HEALTHY, factor,
          zoneAware && priorityZero ? config : null, zoneAware, factory);
      this.degraded = new Group<>(byZone, Health.DEGRADED, factor, null, zoneAware, factory);
    }

    /** A pick in panic: an endpoint of the level by weight, whatever its health. */
    Node<T> panicPick(RandomGenerator random) {
      long x = random.nextLong(cumulativeWeight[all.length - 1]);
      int lo = 0;
      int hi = all.length - 1;
      while (lo < hi) { // the first whose cumulative weight is above x
        int mid = (lo + hi) >>> 1;
        if (cumulativeWeight[mid] > x) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      return all[lo];
    }
  }

  /**
   * A level's endpoints of one health (healthy or degraded) and how a pick chooses among them:
   * a locality by effective weight, or by the zone-aware route, each with a child balancer; or
   * one child balancer over them all.
   */
  static final class Group<T> {
    final String[] zones;
    /** Each locality's child balancer; null for one without endpoints of this health. */
    final Balancer<T>[] children;
    /** Each locality's effective weight (Envoy's locality weighted balancing), or null. */
    final double[] weights;
    /** The zone-aware route, or null. */
    final ZoneRoute route;
    /** Why the route asked for does not apply, or null (see {@link ZoneRoute#offReason}). */
    final String routeOff;
    /** One child over all the group's endpoints, or null if there are none. */
    final Balancer<T> whole;
    private final double[] cumulativeWeight;
    private final int lastWeighted;

    @SuppressWarnings("unchecked")
    Group(Map<String, List<Node<T>>> byZone, Health health, int factor, LocalityConfig zoneRoute,
        boolean ignoreZones, Supplier<? extends ChildBalancer<T>> factory) {
      int n = byZone.size();
      zones = new String[n];
      children = new Balancer[n];
      List<List<Node<T>>> parts = new ArrayList<>();
      double[] effective = new double[n];
      int[] counts = new int[n];
      List<Node<T>> everyone = new ArrayList<>();
      double sum = 0;
      int last = -1;
      cumulativeWeight = new double[n];
      int i = 0;
      for (Map.Entry<String, List<Node<T>>> e : byZone.entrySet()) {
        zones[i] = e.getKey();
        List<Node<T>> members = new ArrayList<>();
        long weight = 0;
        for (Node<T> node : e.getValue()) {
          weight += node.weight();
          if (node.health() == health) {
            members.add(node);
          }
        }
        parts.add(members);
        counts[i] = members.size();
        everyone.addAll(members);
        // Envoy's effective locality weight, operation for operation
        effective[i] = weight * Math.min(1.0, (factor / 100.0)
            * (1.0 * members.size() / e.getValue().size()));
        sum += effective[i];
        cumulativeWeight[i] = sum;
        last = effective[i] > 0 ? i : last;
        i++;
      }
      route = zoneRoute == null ? null : ZoneRoute.of(zones, counts, zoneRoute.localZone(),
          zoneRoute.callerZoneShares(), zoneRoute.minClusterSize());
      routeOff = zoneRoute == null || route != null ? null : ZoneRoute.offReason(zones, counts,
          zoneRoute.localZone(), zoneRoute.callerZoneShares(), zoneRoute.minClusterSize());
      lastWeighted = last;
      weights = ignoreZones || last < 0 ? null : effective;
      boolean byLocality = route != null || weights != null;
      for (int z = 0; z < n && byLocality; z++) {
        children[z] = parts.get(z).isEmpty() ? null : child(parts.get(z), factory);
      }
      whole = byLocality || everyone.isEmpty() ? null : child(everyone, factory);
    }

    private static <T> Balancer<T> child(List<Node<T>> members,
        Supplier<? extends ChildBalancer<T>> factory) {
      @SuppressWarnings("unchecked")
      Node<T>[] nodes = members.toArray(new Node[0]);
      int[] weights = new int[nodes.length];
      for (int i = 0; i < nodes.length; i++) {
        weights[i] = nodes[i].weight();
      }
      ChildBalancer<T> c = Objects.requireNonNull(factory.get(), "balancer factory returned null");
      c.setMembers(nodes, weights);
      return c;
    }

    /**
     * Returns the child balancer a pick goes to, or null if the group has no endpoint.
     * Allocation-free.
     */
    Balancer<T> choose(RandomGenerator random) {
      if (route != null) {
        return children[route.choose(random)];
      }
      if (weights == null) {
        return whole;
      }
      double x = random.nextDouble() * cumulativeWeight[lastWeighted];
      int i = 0;
      while (i < lastWeighted && x >= cumulativeWeight[i]) {
        i++;
      }
      return children[i];
    }
  }

  /**
   * Picks a node: a level and a locality by the loads of this plan, then the locality's child
   * (by {@code hash} if {@code keyed}); {@code random} draws the level and locality.
   */
  Node<T> pick(String name, RandomGenerator random, boolean counted, boolean keyed, long hash) {
    int[] cumulative = this.cumulative;
    if (cumulative.length == 0) {
      throw new NoAvailableEndpointException(name, nodes.length);
    }
    int x = random.nextInt(cumulative[cumulative.length - 1]);
    int slot = 0;
    while (x >= cumulative[slot]) {
      slot++;
    }
    int count = levels.length;
    Level<T> level = levels[slot < count ? slot : slot - count];
    if (level.panic) {
      Node<T> n = level.panicPick(random);
      if (counted) {
        n.start();
      }
      return n;
    }
    Balancer<T> child = (slot < count ? level.healthy : level.degraded).choose(random);
    if (child == null) { // nothing available and panic off: Envoy's 100% to a level with none
      throw new NoAvailableEndpointException(name, nodes.length);
    }
    if (keyed) {
      HashBalancer<T> h = (HashBalancer<T>) child;
      return counted ? h.pick(hash) : h.pickUncounted(hash);
    }
    return counted ? child.pick() : child.pickUncounted();
  }
}

package dev.ballast.core.locality;

import dev.ballast.core.Balancer;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.composite.ChildBalancer;
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
 * each level, for its healthy and its degraded endpoints, a child balancer per locality and the
 * localities' effective weights (or the zone-aware route).
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
   * last is 100, or 0 when nothing may be picked.
   */
  final int[] cumulative;

  @SuppressWarnings("unchecked")
  LocalityPlan(Node<T>[] nodes, LocalityConfig config,
      Supplier<? extends ChildBalancer<T>> factory) {
    this.nodes = nodes;
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
      boolean zoneAware = at == 0 && config.zoneAware() && !loads.panic[0]
          && healthy[0] >= Math.max(1, config.minClusterSize());
      levels[at] = new Level<>(members, loads.panic[at], factor, zoneAware ? config : null,
          factory);
      at++;
    }
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
    Level(List<Node<T>> members, boolean panic, int factor, LocalityConfig zoneAware,
        Supplier<? extends ChildBalancer<T>> factory) {
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
      this.healthy = new Group<>(byZone, Health.HEALTHY, factor, zoneAware, factory);
      this.degraded = new Group<>(byZone, Health.DEGRADED, factor, null, factory);
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
   * A level's endpoints of one health (healthy or degraded), a child balancer per locality that
   * has some, and how a pick chooses the locality: by effective weight (Envoy's locality weighted
   * load balancing), or by the zone-aware route.
   */
  static final class Group<T> {
    final String[] zones;
    final Balancer<T>[] children;
    /** Each locality's effective weight, cumulative. */
    final long[] cumulativeWeight;
    /** Null unless zone-aware routing applies. */
    final ZoneRoute route;
    // when every effective weight rounds to 0: one child over all the group's endpoints
    private final Balancer<T> whole;

    @SuppressWarnings("unchecked")
    Group(Map<String, List<Node<T>>> byZone, Health health, int factor, LocalityConfig zoneAware,
        Supplier<? extends ChildBalancer<T>> factory) {
      int n = byZone.size();
      zones = new String[n];
      children = new Balancer[n];
      cumulativeWeight = new long[n];
      int[] healthyCounts = new int[n];
      List<Node<T>> everyone = new ArrayList<>();
      long sum = 0;
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
        healthyCounts[i] = members.size();
        everyone.addAll(members);
        children[i] = members.isEmpty() ? null : child(members, factory);
        sum += weight * PriorityLoads.score(members.size(), e.getValue().size(), factor);
        cumulativeWeight[i] = sum;
        i++;
      }
      whole = sum == 0 && !everyone.isEmpty() ? child(everyone, factory) : null;
      route = zoneAware == null ? null
          : ZoneRoute.of(zones, healthyCounts, zoneAware.localZone(), zoneAware.callerZones());
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

    /** Returns the child balancer of the locality a pick goes to. Allocation-free. */
    Balancer<T> choose(RandomGenerator random) {
      if (route != null) {
        return children[route.choose(random)];
      }
      long total = cumulativeWeight[cumulativeWeight.length - 1];
      if (total == 0) {
        return whole;
      }
      long x = random.nextLong(total);
      int i = 0;
      while (x >= cumulativeWeight[i]) {
        i++;
      }
      return children[i];
    }
  }
}

package dev.ballast.sim;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.locality.LocalityConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code zones} scenario: three zones of uneven size (6, 10 and 8 servers) and uneven callers
 * (30, 18 and 12: half of the callers in the smallest zone of servers), every caller a real
 * lb-core balancer. It compares uniform balancing (round robin over every server) with {@link
 * LocalityBalancer}'s zone-aware routing (round robin in each zone, each caller knowing its zone
 * and the callers' shares): the share of calls that cross zones, and how evenly the servers are
 * loaded (the busiest and idlest server's calls over the mean). No time passes: every pick is
 * completed at once.
 */
final class ZoneSimulation {

  static final String[] ZONES = {"a", "b", "c"};
  static final int[] SERVERS = {6, 10, 8};
  static final int[] CALLERS = {30, 18, 12};
  static final int PICKS = 10_000;

  private ZoneSimulation() {}

  /** What one way of balancing gives. */
  record Outcome(String balancer, double crossZone, double minLoad, double maxLoad) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-28s cross-zone %5.1f%% of calls,"
          + " server load / mean: min %.3f, max %.3f", balancer + ":", 100 * crossZone, minLoad,
          maxLoad);
    }
  }

  /** What the scenario measures. */
  record Report(long seed, int picks, Outcome uniform, Outcome zoneAware) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "scenario zones: zones a, b, c with 6, 10, 8 servers and"
          + " 30, 18, 12 callers, %d picks per caller; seed %d%n%s%n%s%n", picks, seed, uniform,
          zoneAware);
    }
  }

  /** Runs the scenario and returns its report. */
  static String run(long seed) {
    return run(seed, PICKS).toString();
  }

  /** Runs both ways with {@code picks} picks per caller. */
  static Report run(long seed, int picks) {
    List<Endpoint> servers = new ArrayList<>();
    for (int z = 0; z < ZONES.length; z++) {
      for (int i = 0; i < SERVERS[z]; i++) {
        servers.add(Endpoint.parse("10.0." + z + "." + i + ":8080;zone=" + ZONES[z]));
      }
    }
    Map<String, Integer> callerShares = new LinkedHashMap<>();
    for (int z = 0; z < ZONES.length; z++) {
      callerShares.put(ZONES[z], CALLERS[z]);
    }
    Outcome uniform = run("uniform (round_robin)", servers, picks, seed, (zone, random) ->
        Algorithm.ROUND_ROBIN.create(BalancerConfig.builder().random(random).build()));
    Outcome aware = run("zone-aware (locality)", servers, picks, seed, (zone, random) ->
        LocalityBalancer.<String>builder().algorithm(Algorithm.ROUND_ROBIN)
            .config(BalancerConfig.builder().random(random).build())
            .locality(LocalityConfig.builder().localZone(zone).callerZones(callerShares).build())
            .build());
    return new Report(seed, picks, uniform, aware);
  }

  /** Makes a caller's balancer for its zone. */
  private interface Caller {
    Balancer<String> make(String zone, SplittableRandom random);
  }

  private static Outcome run(String name, List<Endpoint> servers, int picks, long seed,
      Caller caller) {
    SplittableRandom seeds = new SplittableRandom(seed);
    Map<String, Long> load = new HashMap<>();
    long cross = 0;
    long total = 0;
    for (int z = 0; z < ZONES.length; z++) {
      for (int c = 0; c < CALLERS[z]; c++) {
        Balancer<String> b = caller.make(ZONES[z], seeds.split());
        b.update(servers, Endpoint::address);
        for (int i = 0; i < picks; i++) {
          Node<String> n = b.pick();
          n.complete(1_000_000, true);
          load.merge(n.address(), 1L, Long::sum);
          cross += ZONES[z].equals(n.endpoint().zone()) ? 0 : 1;
          total++;
        }
      }
    }
    double mean = (double) total / servers.size();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (Endpoint e : servers) {
      double l = load.getOrDefault(e.address(), 0L) / mean;
      min = Math.min(min, l);
      max = Math.max(max, l);
    }
    return new Outcome(name, (double) cross / total, min, max);
  }
}

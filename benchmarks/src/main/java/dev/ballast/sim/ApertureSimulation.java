package dev.ballast.sim;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.aperture.Aperture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The {@code aperture} scenario: 1,000 clients, each a real lb-core {@link Aperture} balancer
 * with its own coordinate (index i of 1,000), over the same 1,000 servers. It reports the
 * connections each client has (the servers under its arc, which are the only ones it picks), how
 * evenly all clients' picks load the servers, and how many connections each client opens and
 * closes when one server leaves. No time passes: picks are completed at once, so every client's
 * aperture stays at its minimum (the load band only widens it under load).
 */
final class ApertureSimulation {

  static final int CLIENTS = 1000;
  static final int SERVERS = 1000;
  static final int PICKS = 1000;

  private ApertureSimulation() {}

  /** Runs the scenario and returns its report. */
  static String run(long seed) {
    return run(seed, CLIENTS, SERVERS, PICKS).toString();
  }

  /** What the scenario measures. */
  record Report(int clients, int servers, int picks, int leaving, long seed, double connections,
      int minConnections, int maxConnections, double minLoad, double maxLoad, double opened,
      int maxOpened, double closed, int maxClosed) {

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "scenario aperture: %d clients x %d servers (deterministic aperture, minimum %d),"
              + " %d picks per client; then server %d leaves; seed %d%n"
              + "connections per client:       mean %.2f, min %d, max %d%n"
              + "server load / mean load:      min %.3f, max %.3f%n"
              + "when server %d leaves, per client: opened mean %.2f (max %d), closed mean %.2f"
              + " (max %d) besides the leaving server's; changed mean %.2f%n",
          clients, servers, Aperture.MIN_APERTURE, picks, leaving, seed, connections,
          minConnections, maxConnections, minLoad, maxLoad, leaving, opened, maxOpened, closed,
          maxClosed, opened + closed);
    }
  }

  /** Runs {@code clients} clients over {@code servers} servers, {@code picks} picks each. */
  static Report run(long seed, int clients, int serverCount, int picks) {
    List<Endpoint> servers = new ArrayList<>(serverCount);
    for (int i = 0; i < serverCount; i++) {
      servers.add(Endpoint.of("10.1." + (i >> 8) + "." + (i & 0xff), 8080));
    }
    List<Endpoint> fewer = new ArrayList<>(servers);
    int leaving = serverCount / 2;
    fewer.remove(leaving);
    SplittableRandom seeds = new SplittableRandom(seed);
    long[] load = new long[serverCount];
    Stats connections = new Stats();
    Stats opened = new Stats();
    Stats closed = new Stats();
    for (int c = 0; c < clients; c++) {
      Aperture<Integer> client = new Aperture<>(BalancerConfig.builder()
          .random(seeds.split()).apertureCoordinate(c, clients).build());
      client.update(servers, servers::indexOf);
      for (int i = 0; i < picks; i++) {
        Node<Integer> n = client.pick();
        n.complete(0, true);
        load[n.value()]++;
      }
      Set<Integer> before = values(client.aperture());
      connections.add(before.size());
      client.update(fewer, servers::indexOf);
      Set<Integer> after = values(client.aperture());
      Set<Integer> added = new HashSet<>(after);
      added.removeAll(before);
      Set<Integer> removed = new HashSet<>(before);
      removed.removeAll(after);
      removed.remove(leaving); // that one closes for every client that had it
      opened.add(added.size());
      closed.add(removed.size());
    }
    double mean = (double) clients * picks / serverCount;
    double min = Double.MAX_VALUE;
    double max = 0;
    for (long l : load) {
      min = Math.min(min, l / mean);
      max = Math.max(max, l / mean);
    }
    return new Report(clients, serverCount, picks, leaving, seed, connections.mean(),
        connections.min, connections.max, min, max, opened.mean(), opened.max, closed.mean(),
        closed.max);
  }

  private static Set<Integer> values(List<Node<Integer>> nodes) {
    Set<Integer> out = new HashSet<>();
    for (Node<Integer> n : nodes) {
      out.add(n.value());
    }
    return out;
  }

  private static final class Stats {
    long sum;
    long count;
    int min = Integer.MAX_VALUE;
    int max;

    void add(int v) {
      sum += v;
      count++;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }

    double mean() {
      return (double) sum / count;
    }
  }
}

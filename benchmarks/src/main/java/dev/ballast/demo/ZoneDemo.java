package dev.ballast.demo;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.framed.FramedServer;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./ballast demo --zones}: zone-aware routing on real {@link FramedServer}s on 127.0.0.1,
 * labelled with three zones of uneven size (2, 4 and 3 servers), called by one client per zone
 * with uneven traffic (50, 30 and 20% of the calls). Each client runs twice, balancing uniformly
 * (round robin over every server) and zone-aware ({@code locality.localZone} and {@code
 * locality.callerZones}), and the demo prints the share of calls that crossed zones and the
 * busiest server's calls over the mean; then zone a's servers are reported unhealthy and
 * healthy again while its client calls.
 */
final class ZoneDemo {

  private static final String[] ZONES = {"a", "b", "c"};
  private static final int[] SERVERS = {2, 4, 3};
  private static final int[] CALLS = {5000, 3000, 2000};

  private ZoneDemo() {}

  static void run(PrintStream out) throws Exception {
    List<FramedServer> servers = new ArrayList<>();
    List<String> zoneOf = new ArrayList<>();
    try {
      for (int z = 0; z < ZONES.length; z++) {
        for (int i = 0; i < SERVERS[z]; i++) {
          servers.add(FramedServer.start(FramedServer.echo()));
          zoneOf.add(ZONES[z]);
        }
      }
      out.println("ballast demo --zones: zones a, b, c with 2, 4, 3 real servers on 127.0.0.1;"
          + " clients in a, b, c make 5000, 3000, 2000 calls");
      for (boolean aware : new boolean[] {false, true}) {
        long before = total(servers);
        long[] start = counts(servers);
        long cross = 0;
        for (int z = 0; z < ZONES.length; z++) {
          try (BallastClient<byte[], byte[]> client = client(servers, zoneOf, ZONES[z], aware,
              "healthy")) {
            long[] was = counts(servers);
            calls(client, CALLS[z]);
            long[] now = counts(servers);
            for (int s = 0; s < now.length; s++) {
              cross += zoneOf.get(s).equals(ZONES[z]) ? 0 : now[s] - was[s];
            }
          }
        }
        long[] end = counts(servers);
        long all = total(servers) - before;
        double max = 0;
        for (int s = 0; s < end.length; s++) {
          max = Math.max(max, (end[s] - start[s]) * servers.size() / (double) all);
        }
        out.printf(Locale.ROOT, "%-24s cross-zone %5.1f%% of calls, busiest server %.2fx the"
            + " mean%n", aware ? "zone-aware (locality):" : "uniform (round_robin):",
            100.0 * cross / all, max);
      }
      try (BallastClient<byte[], byte[]> client = client(servers, zoneOf, "a", true, "healthy")) {
        for (String health : new String[] {"healthy", "unhealthy", "healthy"}) {
          client.updateEndpoints(endpoints(servers, zoneOf, health));
          long[] was = counts(servers);
          calls(client, 1000);
          long[] now = counts(servers);
          long local = 0;
          for (int s = 0; s < now.length; s++) {
            local += zoneOf.get(s).equals("a") ? now[s] - was[s] : 0;
          }
          out.printf(Locale.ROOT, "client in a, zone a %-9s: %5.1f%% of its calls stay in a%n",
              health, local / 10.0);
        }
      }
    } finally {
      servers.forEach(FramedServer::close);
    }
  }

  private static BallastClient<byte[], byte[]> client(List<FramedServer> servers,
      List<String> zoneOf, String zone, boolean aware, String healthOfA) {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed()
        .endpoints(endpoints(servers, zoneOf, healthOfA)).balancer(Algorithm.ROUND_ROBIN);
    if (aware) {
      ClientOptions.CLIENT.apply(b, Map.of("locality", Map.of("localZone", zone,
          "callerZones", Map.of("a", CALLS[0], "b", CALLS[1], "c", CALLS[2]))));
    }
    return b.build();
  }

  private static List<Endpoint> endpoints(List<FramedServer> servers, List<String> zoneOf,
      String healthOfA) {
    List<Endpoint> out = new ArrayList<>();
    for (int s = 0; s < servers.size(); s++) {
      Map<String, String> labels = new HashMap<>();
      labels.put("zone", zoneOf.get(s));
      if (zoneOf.get(s).equals("a")) {
        labels.put("health", healthOfA);
      }
      out.add(Endpoint.of("127.0.0.1", servers.get(s).port(), 1, labels));
    }
    return out;
  }

  private static void calls(BallastClient<byte[], byte[]> client, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      client.call(new byte[] {(byte) i}).get(10, TimeUnit.SECONDS);
    }
  }

  private static long[] counts(List<FramedServer> servers) {
    long[] c = new long[servers.size()];
    for (int i = 0; i < c.length; i++) {
      c[i] = servers.get(i).requests();
    }
    return c;
  }

  private static long total(List<FramedServer> servers) {
    long t = 0;
    for (FramedServer s : servers) {
      t += s.requests();
    }
    return t;
  }
}

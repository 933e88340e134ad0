package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Composites nest in the client stack, over real framed backends on loopback configured by the
 * client options: label subsets over zones over P2C peak EWMA, and zones over ring hash with the
 * call's key passed down.
 */
class NestingOverServersTest {

  private final List<FramedServer> servers = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 8; i++) {
      servers.add(FramedServer.start(FramedServer.echo()));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  /** Servers 0-3 v1, 4-7 v2; in each version two in zone a, two in zone b. */
  private List<Endpoint> endpoints() {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      Map<String, String> labels = new HashMap<>();
      labels.put("version", i < 4 ? "v1" : "v2");
      labels.put("zone", (i / 2) % 2 == 0 ? "a" : "b");
      out.add(Endpoint.of("127.0.0.1", servers.get(i).port(), 1, labels));
    }
    return out;
  }

  private long[] answered() {
    return servers.stream().mapToLong(FramedServer::requests).toArray();
  }

  private static final Map<String, Object> LOCAL_A = Map.of("localZone", "a",
      "callerZones", Map.of("a", 1, "b", 1), "minClusterSize", 1);

  @Test
  void labelSubsetsOverZonesOverP2cKeepEachCallInItsSubsetAndZone() throws Exception {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed().endpoints(endpoints());
    ClientOptions.CLIENT.apply(b, Map.of("balancer", "p2c-peak-ewma",
        "subset", Map.of("selectors", List.of("version")), "locality", LOCAL_A));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      assertThat(client.balancerName()).isEqualTo("label_subset(locality(p2c_peak_ewma))");
      CallOptions v2 = CallOptions.DEFAULT.withLabels(Map.of("version", "v2"));
      for (int i = 0; i < 200; i++) {
        client.call(new byte[] {1}, v2).get(10, TimeUnit.SECONDS);
      }
      long[] n = answered();
      // v2 in zone a is servers 4 and 5: every call, none elsewhere
      assertThat(n[4] + n[5]).isEqualTo(200);
      assertThat(n[0] + n[1] + n[2] + n[3] + n[6] + n[7]).isZero();
    }
  }

  @Test
  void zonesOverRingHashKeepAKeyOnOneServerOfItsZone() throws Exception {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed().endpoints(endpoints());
    ClientOptions.CLIENT.apply(b, Map.of("balancer", "ring-hash", "locality", LOCAL_A));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      assertThat(client.balancerName()).isEqualTo("locality(ring_hash)");
      Map<String, Integer> serverOfKey = new TreeMap<>();
      for (int k = 0; k < 20; k++) {
        String key = "user-" + k;
        for (int i = 0; i < 10; i++) {
          long[] before = answered();
          client.call(new byte[] {1}, CallOptions.DEFAULT.withKey(key)).get(10, TimeUnit.SECONDS);
          long[] after = answered();
          int server = -1;
          for (int s = 0; s < after.length; s++) {
            server = after[s] > before[s] ? s : server;
          }
          Integer first = serverOfKey.putIfAbsent(key, server);
          assertThat(server).as(key).isEqualTo(first == null ? server : first);
        }
      }
      // every key on one server of zone a (0, 1, 4, 5), the keys spread over them
      assertThat(serverOfKey.values()).allMatch(s -> s == 0 || s == 1 || s == 4 || s == 5);
      assertThat(new java.util.HashSet<>(serverOfKey.values()).size()).isGreaterThan(1);
    }
  }
}

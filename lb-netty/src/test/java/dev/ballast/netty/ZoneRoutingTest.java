package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Zone-aware routing in the client stack, over real framed backends on loopback labelled by
 * zone, configured through the client options ({@code locality.*}).
 */
class ZoneRoutingTest {

  private final List<FramedServer> servers = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 9; i++) {
      servers.add(FramedServer.start(FramedServer.echo()));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  /** Servers 0-2 in zone a, 3-5 in b, 6-8 in c; zone a's with the given health label. */
  private List<Endpoint> endpoints(String healthOfZoneA) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      Map<String, String> labels = new HashMap<>();
      labels.put("zone", String.valueOf((char) ('a' + i / 3)));
      if (i < 3) {
        labels.put("health", healthOfZoneA);
      }
      out.add(Endpoint.of("127.0.0.1", servers.get(i).port(), 1, labels));
    }
    return out;
  }

  private long[] perZone() {
    long[] r = new long[3];
    for (int i = 0; i < servers.size(); i++) {
      r[i / 3] += servers.get(i).requests();
    }
    return r;
  }

  private static void calls(BallastClient<byte[], byte[]> client, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      byte[] payload = {(byte) i};
      assertThat(client.call(payload).get(10, TimeUnit.SECONDS)).containsExactly(payload);
    }
  }

  @Test
  void aCallerInZoneAStaysThereSpillsWhileItIsUnhealthyAndComesBack() throws Exception {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed()
        .endpoints(endpoints("healthy")).balancer(Algorithm.ROUND_ROBIN);
    ClientOptions.CLIENT.apply(b, Map.of("locality", Map.of("localZone", "a",
        "callerZones", Map.of("a", 1, "b", 1, "c", 1))));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      assertThat(client.balancerName()).isEqualTo("locality(round_robin)");
      calls(client, 90);
      assertThat(perZone()).containsExactly(90, 0, 0);
      // zone a's endpoints reported unhealthy (a registry's status, an active check)
      client.updateEndpoints(endpoints("unhealthy"));
      calls(client, 600);
      long[] spilled = perZone();
      assertThat(spilled[0]).isEqualTo(90);
      assertThat(spilled[1] + spilled[2]).isEqualTo(600);
      assertThat(spilled[1]).isBetween(240L, 360L); // half each, by the residual capacity
      client.updateEndpoints(endpoints("healthy"));
      calls(client, 30);
      assertThat(perZone()[0]).isEqualTo(120);
    }
  }
}

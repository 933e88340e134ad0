package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.RefusedPort;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Retries under zone-aware routing over loopback, the caller in zone a: zone a's two endpoints
 * refuse every connection ({@link RefusedPort}), zones b and c hold four real framed backends.
 * Until outlier detection ejects zone a's endpoints the zone route sends every pick there, but a
 * retry must go to an endpoint the call has not tried (docs/netty.md), and there are four healthy
 * ones in b and c: no call fails. The client's defaults otherwise (P2C peak EWMA in each zone, 3
 * attempts, outlier detection after 5 failures in a row).
 */
class ZoneRetryTest {

  private final List<FramedServer> servers = new ArrayList<>();
  private final List<RefusedPort> refusing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    servers.forEach(FramedServer::close);
    for (RefusedPort p : refusing) {
      p.close();
    }
  }

  private static Map<String, Long> failures(BallastClient<?, ?> client) {
    Map<String, Long> out = new HashMap<>();
    client.stats().forEach(s -> out.put(s.address(), s.failures()));
    return out;
  }

  @Test
  void aRetryLeavesADeadLocalZoneForUntriedEndpointsElsewhere() throws Exception {
    List<Endpoint> endpoints = new ArrayList<>();
    List<String> zoneA = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      RefusedPort p = new RefusedPort();
      refusing.add(p);
      zoneA.add(p.endpoint().address());
      endpoints.add(Endpoint.parse(p.endpoint() + ";zone=a"));
    }
    for (int i = 0; i < 4; i++) {
      FramedServer s = FramedServer.start(FramedServer.echo());
      servers.add(s);
      endpoints.add(Endpoint.parse(s.endpoint() + ";zone=" + (i < 2 ? "b" : "c")));
    }
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed().endpoints(endpoints);
    ClientOptions.CLIENT.apply(b, Map.of("locality", Map.of("localZone", "a",
        "callerZones", Map.of("a", 1, "b", 1, "c", 1))));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      int calls = 50;
      List<String> failed = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        Map<String, Long> before = failures(client);
        try {
          client.call(new byte[] {(byte) i}).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          // where this call's attempts went: the endpoints whose failure counts moved
          StringBuilder where = new StringBuilder();
          failures(client).forEach((address, n) -> {
            long d = n - before.getOrDefault(address, 0L);
            if (d > 0) {
              where.append(' ').append(address).append(zoneA.contains(address) ? "(a)" : "")
                  .append(" x").append(d);
            }
          });
          BallastException last = (BallastException) e.getCause();
          failed.add("call " + i + ": attempt " + last.attempt() + " at " + last.endpoint()
              + "; failed attempts:" + where);
        }
      }
      long served = servers.stream().mapToLong(FramedServer::requests).sum();
      long zoneAFailures = failures(client).entrySet().stream()
          .filter(e -> zoneA.contains(e.getKey())).mapToLong(Map.Entry::getValue).sum();
      assertThat(zoneAFailures).as("first attempts went to the local zone").isPositive();
      assertThat(failed).as("failed calls of %s (zone b and c served %s)", calls, served)
          .isEmpty();
      assertThat(served).isEqualTo(calls);
    }
  }
}

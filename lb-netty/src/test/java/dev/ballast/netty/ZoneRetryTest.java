package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retries under zone-aware routing, over six real framed backends on loopback, two in each of
 * zones a, b and c, the caller in a: when both of zone a's servers stop (connection refused) and
 * before outlier detection ejects them, the zone route still sends every pick to zone a, but a
 * retry must go to an endpoint the call has not tried (docs/netty.md), and there are four healthy
 * ones in b and c: no call fails. The client's defaults otherwise (P2C peak EWMA in each zone, 3
 * attempts, outlier detection after 5 failures in a row).
 */
class ZoneRetryTest {

  private final List<FramedServer> servers = new ArrayList<>();
  // zone a's ports once its servers stopped: bound and never listening, so they refuse and no
  // other socket takes them (see RefusedPort)
  private final List<Socket> refusing = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 6; i++) {
      servers.add(FramedServer.start(FramedServer.echo()));
    }
  }

  @AfterEach
  void stop() throws IOException {
    servers.forEach(FramedServer::close);
    for (Socket s : refusing) {
      s.close();
    }
  }

  /** Servers 0-1 in zone a, 2-3 in b, 4-5 in c. */
  private List<Endpoint> endpoints() {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      out.add(Endpoint.of("127.0.0.1", servers.get(i).port(), 1,
          Map.of("zone", String.valueOf((char) ('a' + i / 2)))));
    }
    return out;
  }

  private static Map<String, Long> failures(BallastClient<?, ?> client) {
    Map<String, Long> out = new HashMap<>();
    client.stats().forEach(s -> out.put(s.address(), s.failures()));
    return out;
  }

  @Test
  void aRetryLeavesADeadLocalZoneForUntriedEndpointsElsewhere() throws Exception {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed().endpoints(endpoints());
    ClientOptions.CLIENT.apply(b, Map.of("locality", Map.of("localZone", "a",
        "callerZones", Map.of("a", 1, "b", 1, "c", 1))));
    try (BallastClient<byte[], byte[]> client = b.build()) {
      for (int i = 0; i < 20; i++) {
        client.call(new byte[] {(byte) i}).get(10, TimeUnit.SECONDS);
      }
      assertThat(servers.get(0).requests() + servers.get(1).requests()).isEqualTo(20);

      List<String> zoneA = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        FramedServer s = servers.get(i);
        zoneA.add(s.endpoint().address());
        s.close();
        Socket refuse = new Socket();
        refuse.setReuseAddress(true);
        refuse.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.port()));
        refusing.add(refuse);
      }
      // the client has seen its connections to zone a close: every new attempt there connects
      Await.until(Duration.ofSeconds(5), () -> client.stats().toString(),
          () -> client.stats().stream().filter(s -> zoneA.contains(s.address()))
              .allMatch(s -> s.connections() == 0));

      long servedBefore = 0;
      for (int i = 2; i < 6; i++) {
        servedBefore += servers.get(i).requests();
      }
      int calls = 50;
      List<String> failed = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        Map<String, Long> before = failures(client);
        try {
          client.call(new byte[] {(byte) i}).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          // where this call's attempts went: the endpoints whose failure counts moved
          Map<String, Long> after = failures(client);
          StringBuilder where = new StringBuilder();
          after.forEach((address, n) -> {
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
      long served = -servedBefore;
      for (int i = 2; i < 6; i++) {
        served += servers.get(i).requests();
      }
      assertThat(failed).as("failed calls of %s (zone b and c served %s)", calls, served)
          .isEmpty();
      assertThat(served).isEqualTo(calls);
    }
  }
}

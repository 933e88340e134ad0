package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Deterministic aperture over real servers: a client, index i of 10, configured through lb-core's
 * BalancerConfig, connects to the 12 of 20 servers under its arc and to no other.
 */
class ApertureConnectionsTest {

  private final List<FramedServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  @Test
  void aClientOpensConnectionsOnlyInsideItsAperture() throws Exception {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      FramedServer s = FramedServer.start(FramedServer.echo());
      servers.add(s);
      endpoints.add(s.endpoint());
    }
    // The ring: servers sorted by address. Client 2 of 10 sits at 0.2 and its arc spans
    // 12 x 10 / 20 = 6 client slices, 0.6 of the ring: ring positions 4 to 15.
    List<FramedServer> ring = new ArrayList<>(servers);
    ring.sort(Comparator.comparing(s -> s.endpoint().address()));
    Set<FramedServer> inside = new HashSet<>(ring.subList(4, 16));
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(Algorithm.APERTURE)
        .balancerConfig(BalancerConfig.builder().apertureCoordinate(2, 10).build())
        .build()) {
      for (int i = 0; i < 600; i++) {
        byte[] payload = {(byte) i};
        assertThat(client.call(payload).get(10, TimeUnit.SECONDS)).containsExactly(payload);
      }
      for (FramedServer s : servers) {
        if (inside.contains(s)) {
          assertThat(s.requests()).as("%s, inside", s.endpoint()).isPositive();
          assertThat(s.connections()).as("%s, inside", s.endpoint()).isPositive();
        } else {
          assertThat(s.requests()).as("%s, outside", s.endpoint()).isZero();
          assertThat(s.connections()).as("%s, outside", s.endpoint()).isZero();
        }
      }
    }
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Item 1: weights 1..5 under VNSWRR give each backend exactly its share. */
class DistributionTest {

  private final List<FramedServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  @Test
  void vnswrrGivesExactSharesOverRealConnections() throws Exception {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int w = 1; w <= 5; w++) {
      FramedServer s = FramedServer.start(FramedServer.echo());
      servers.add(s);
      endpoints.add(Endpoint.of("127.0.0.1", s.port(), w, Map.of()));
    }
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(Algorithm.VNSWRR)
        .build()) {
      for (int i = 0; i < 1500; i++) {
        byte[] payload = {(byte) i};
        assertThat(client.call(payload).get(10, TimeUnit.SECONDS)).containsExactly(payload);
      }
      for (int w = 1; w <= 5; w++) {
        // 1500 calls over a total weight of 15: 100 per unit of weight, exactly.
        assertThat(servers.get(w - 1).requests()).as("backend of weight " + w)
            .isEqualTo(100L * w);
      }
      assertThat(client.stats()).allSatisfy(s -> {
        assertThat(s.pending()).isZero();
        assertThat(s.inFlight()).isZero();
        assertThat(s.failures()).isZero();
      });
    }
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The update contract through the client: a set the balancer rejects opens no pool (no
 * connection, no reaper, no outlier-detection host), and the previous set keeps serving.
 */
class RejectedUpdateTest {

  @Test
  void aRejectedUpdateOpensNoPoolAndLeavesNothingBehindAfterClose() throws Exception {
    try (FramedServer a = FramedServer.start(FramedServer.echo());
        FramedServer b = FramedServer.start(FramedServer.echo());
        FramedServer c = FramedServer.start(FramedServer.echo())) {
      BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(List.of(a.endpoint()))
          .balancer(Algorithm.VNSWRR)
          .pool(PoolConfig.builder().minConnections(2).build())
          .maxAttempts(1)
          .build();
      Await.until(Duration.ofSeconds(10), () -> "a's warm connections: " + a.connections(),
          () -> a.connections() == 2);

      // Σ weight/gcd = 33554433 virtual nodes: VNSWRR's ring cannot hold it.
      List<Endpoint> tooLarge = List.of(a.endpoint().withWeight(16_777_216),
          b.endpoint().withWeight(16_777_217));
      assertThatThrownBy(() -> client.updateEndpoints(tooLarge))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("virtual nodes");
      assertThat(client.endpoints()).containsExactly(a.endpoint());
      assertThat(client.call(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);

      // A good update after it: once c's pool has warmed up, a pool made for b by the rejected
      // update (connecting earlier, to the same loopback) would have connected too.
      client.updateEndpoints(List.of(a.endpoint(), c.endpoint()));
      Await.until(Duration.ofSeconds(10), () -> "c's warm connections: " + c.connections(),
          () -> c.connections() == 2);
      assertThat(b.connections()).as("connections to the rejected endpoint").isZero();
      assertThat(client.stats()).extracting(EndpointStats::address)
          .containsExactly(a.endpoint().address(), c.endpoint().address());

      client.close();
      Await.until(Duration.ofSeconds(10), () -> "connections left after close: a="
              + a.connections() + " b=" + b.connections() + " c=" + c.connections(),
          () -> a.connections() + b.connections() + c.connections() == 0);
    }
  }
}

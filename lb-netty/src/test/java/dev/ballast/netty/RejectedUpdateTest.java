package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Router;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

  @Test
  void aSubsetWhoseChildBalancerCannotHoldItsWeightsIsRejectedAtTheUpdate() throws Exception {
    try (FramedServer a = FramedServer.start(FramedServer.echo());
        FramedServer b = FramedServer.start(FramedServer.echo());
        FramedServer c = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(a.endpoint() + ";zone=a," + b.endpoint() + ";zone=b")
            .balancer(Algorithm.VNSWRR)
            .subsets(List.of(List.of("zone")), FallbackPolicy.NO_FALLBACK, null)
            .maxAttempts(1)
            .build()) {
      CallOptions zoneB = CallOptions.DEFAULT.withLabels(Map.of("zone", "b"));
      assertThat(client.call(new byte[] {1}, zoneB).get(10, TimeUnit.SECONDS))
          .containsExactly(1);
      // The whole set's weights fit an int; zone b's VNSWRR ring (33554433 virtual nodes) does
      // not: the update is refused at once, not at zone b's next pick.
      List<Endpoint> tooLargeForB = List.of(a.endpoint().withLabels(Map.of("zone", "a")),
          b.endpoint().withWeight(16_777_216).withLabels(Map.of("zone", "b")),
          c.endpoint().withWeight(16_777_217).withLabels(Map.of("zone", "b")));
      assertThatThrownBy(() -> client.updateEndpoints(tooLargeForB))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("virtual nodes");
      assertThat(client.endpoints()).extracting(Endpoint::address)
          .containsExactly(a.endpoint().address(), b.endpoint().address());
      // zone b still goes to b alone, and every call ends.
      for (int i = 0; i < 4; i++) {
        assertThat(client.call(new byte[] {2}, zoneB).get(10, TimeUnit.SECONDS))
            .containsExactly(2);
      }
      assertThat(b.requests()).isEqualTo(5);
      assertThat(c.requests()).isZero();
      assertThat(c.connections()).isZero();
      assertThat(client.inFlightCalls()).isZero();
    }
  }

  @Test
  void aDeltaThatASubsetsChildCannotHoldIsRejectedToo() {
    SubsetSelector<String> selector = SubsetSelector.<String>builder()
        .selectors(List.of(List.of("zone"))).algorithm(Algorithm.VNSWRR).build();
    Router<String> router = Router.of(selector);
    router.update(List.of(Endpoint.parse("10.0.0.1:80;weight=16777216;zone=b")),
        Endpoint::address);
    Endpoint second = Endpoint.parse("10.0.0.2:80;weight=16777217;zone=b");
    assertThatThrownBy(() -> router.apply(List.of(second), List.of(), Endpoint::address))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("virtual nodes");
    assertThat(router.nodes()).extracting(n -> n.value()).containsExactly("10.0.0.1:80");
    // Removing the first one in the same delta makes room.
    router.apply(List.of(second), List.of("10.0.0.1:80"), Endpoint::address);
    assertThat(router.pick(CallOptions.DEFAULT.withLabels(Map.of("zone", "b"))).value())
        .isEqualTo("10.0.0.2:80");
  }
}

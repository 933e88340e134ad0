package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.ClientClosedException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** close() with a grace period, endpoint updates at runtime, and a server's start. */
class LifecycleTest {

  @Test
  void aServerOnATakenPortFailsTyped() {
    try (FramedServer first = FramedServer.start(FramedServer.echo())) {
      Throwable t = catchThrowable(() -> FramedServer.builder().port(first.port())
          .handler(FramedServer.echo()).start());
      assertThat(t).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot bind 127.0.0.1:" + first.port());
    }
  }

  @Test
  void closeLetsInFlightCallsFinishThenFailsTheRest() throws Exception {
    try (FramedServer slow = FramedServer.start(FramedServer.delayed(Duration.ofMillis(200),
            FramedServer.echo()));
        FramedServer stall = FramedServer.start(req -> new CompletableFuture<>())) {
      BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(List.of(slow.endpoint(), stall.endpoint()))
          .balancer(Algorithm.ROUND_ROBIN)
          .timeout(Duration.ofSeconds(30))
          .maxAttempts(1)
          .build();
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        calls.add(client.call(new byte[] {(byte) i}));
      }
      Await.until(Duration.ofSeconds(10), () -> "requests at servers",
          () -> slow.requests() + stall.requests() == 10);
      CompletableFuture<Void> closed = client.closeAsync(Duration.ofSeconds(2));
      Throwable late = catchThrowable(() -> client.call(new byte[] {1}).get(1, TimeUnit.SECONDS));
      assertThat(late).cause().isInstanceOf(ClientClosedException.class);
      closed.get(20, TimeUnit.SECONDS);
      int ok = 0;
      for (CompletableFuture<byte[]> f : calls) {
        assertThat(f).isDone();
        try {
          f.get();
          ok++;
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(ClientClosedException.class);
          ClientClosedException c = (ClientClosedException) e.getCause();
          assertThat(c.endpoint()).isEqualTo(stall.endpoint().address());
          assertThat(c.reachedServer()).isTrue();
        }
      }
      assertThat(ok).isEqualTo(5);
      assertThat(client.inFlightCalls()).isZero();
      Await.until(Duration.ofSeconds(5), () -> "connections left",
          () -> slow.connections() == 0 && stall.connections() == 0);
      assertThat(client.stats()).allSatisfy(s -> {
        assertThat(s.pending()).isZero();
        assertThat(s.inFlight()).isZero();
        assertThat(s.connections()).isZero();
      });
    }
  }

  @Test
  void removedEndpointDrainsAndNewOnesServe() throws Exception {
    try (FramedServer a = FramedServer.start(FramedServer.delayed(Duration.ofMillis(300),
            FramedServer.echo()));
        FramedServer b = FramedServer.start(FramedServer.echo());
        FramedServer c = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(a.endpoint(), b.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .maxAttempts(1)
            .build()) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        calls.add(client.call(new byte[] {(byte) i}));
      }
      Await.until(Duration.ofSeconds(10), () -> "a's requests", () -> a.requests() == 5);
      client.updateEndpoints(List.of(b.endpoint(), c.endpoint()));
      // a's in-flight calls still finish: its pool drains, then closes.
      for (CompletableFuture<byte[]> f : calls) {
        assertThat(f.get(10, TimeUnit.SECONDS)).hasSize(1);
      }
      Await.until(Duration.ofSeconds(10), () -> "a's connections " + a.connections(),
          () -> a.connections() == 0);
      for (int i = 0; i < 10; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      assertThat(a.requests()).isEqualTo(5);
      assertThat(c.requests()).isEqualTo(5);
      assertThat(client.endpoints()).containsExactly(b.endpoint(), c.endpoint());
    }
  }

  @Test
  void reweightKeepsPoolsAndTakesTheNewShares() throws Exception {
    try (FramedServer b = FramedServer.start(FramedServer.echo());
        FramedServer c = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(b.endpoint(), c.endpoint()))
            .balancer(Algorithm.VNSWRR)
            .build()) {
      for (int i = 0; i < 10; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      client.updateEndpoints(List.of(Endpoint.of("127.0.0.1", b.port(), 3, Map.of()),
          c.endpoint()));
      long b0 = b.requests();
      long c0 = c.requests();
      for (int i = 0; i < 400; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      assertThat(b.requests() - b0).isEqualTo(300);
      assertThat(c.requests() - c0).isEqualTo(100);
      // Same pools: still one connection each, never reopened.
      assertThat(b.connections()).isEqualTo(1);
      assertThat(c.connections()).isEqualTo(1);
    }
  }

  @Test
  void noEndpointsFailsWithLbCoresException() throws Exception {
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().build()) {
      Throwable t = catchThrowable(() -> client.call(new byte[] {1}).get(5, TimeUnit.SECONDS));
      assertThat(t).cause().isInstanceOf(dev.ballast.core.NoAvailableEndpointException.class);
    }
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Transport;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client whose own event loops were shut down under it: each call still ends at once, with
 * a typed failure, and nothing stays counted in flight.
 */
class ShutDownLoopsTest {

  @Test
  void callsAfterTheLoopsAreShutDownFailAtOnce() throws Exception {
    FramedServer server = FramedServer.start(FramedServer.echo());
    EventLoopGroup group = Transport.newGroup(1, "test-shut-down");
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(server.endpoint())).eventLoopGroup(group)
        .timeout(Duration.ofSeconds(30)).build()) {
      assertThat(client.call(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();

      for (int i = 0; i < 20; i++) {
        CompletableFuture<byte[]> f = client.call(new byte[] {2});
        Throwable t = f.handle((r, e) -> e).get(5, TimeUnit.SECONDS);
        assertThat(t).isInstanceOf(BallastException.class);
      }
      assertThat(client.inFlightCalls()).isZero();
    } finally {
      server.close();
    }
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.framed.FramedServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * User code that throws an {@link Error} (a filter, an attempt filter, a classifier) fails its
 * call at once: {@code call()} never throws, and the call does not stay in flight.
 */
class ThrowingUserCodeTest {

  private FramedServer server;

  @BeforeEach
  void start() {
    server = FramedServer.start(FramedServer.echo());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private void failsAtOnce(UnaryOperator<BallastClient.Builder<byte[], byte[]>> withUserCode)
      throws Exception {
    try (BallastClient<byte[], byte[]> client = withUserCode.apply(BallastClient.framed()
        .endpoints(List.of(server.endpoint())).timeout(Duration.ofSeconds(30))).build()) {
      CompletableFuture<byte[]> f = client.call(new byte[] {1});
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(AssertionError.class).hasRootCauseMessage("user code broke");
      assertThat(client.inFlightCalls()).isZero();
    }
  }

  @Test
  void aFilterThrowingAnError() throws Exception {
    failsAtOnce(b -> b.filter((req, ctx, next) -> {
      throw new AssertionError("user code broke");
    }));
  }

  @Test
  void anAttemptFilterThrowingAnError() throws Exception {
    failsAtOnce(b -> b.attemptFilter((req, ctx, next) -> {
      throw new AssertionError("user code broke");
    }));
  }

  @Test
  void aClassifierThrowingAnError() throws Exception {
    failsAtOnce(b -> b.maxAttempts(1).classifier((ctx, rep, err) -> {
      throw new AssertionError("user code broke");
    }));
  }
}

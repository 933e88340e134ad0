package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Durations past what nanoseconds hold ({@code ChronoUnit.FOREVER}) count as 100 years. */
class DurationLimitsTest {

  private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

  @Test
  void foreverCountsAsAHundredYearsInEveryBuilderAndCall() throws Exception {
    try (FramedServer echo = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(echo.endpoint()))
            .timeout(FOREVER)
            .closeGrace(FOREVER)
            .lateAnswerWait(FOREVER)
            .slowRequestThreshold(FOREVER)
            .hedging(Hedging.after(FOREVER))
            .pool(PoolConfig.builder().acquireTimeout(FOREVER).idleTimeout(FOREVER)
                .maxLifetime(FOREVER).connectTimeout(FOREVER).build())
            .outlierDetection(OutlierDetection.builder().interval(FOREVER)
                .baseEjectionTime(FOREVER).maxEjectionTime(FOREVER).build())
            .build()) {
      assertThat(client.call(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);
      CallOptions forever = CallOptions.DEFAULT.withTimeout(FOREVER);
      assertThat(forever.timeout()).isEqualTo(Duration.ofDays(36_500));
      assertThat(client.call(new byte[] {2}, forever).get(10, TimeUnit.SECONDS))
          .containsExactly(2);
      // Closing with an endless grace ends as soon as no call is in flight.
      client.closeAsync(FOREVER).get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void closeWithAnEndlessGraceClosesEveryConnectionOnceIdle() throws Exception {
    try (FramedServer echo = FramedServer.start(FramedServer.echo())) {
      BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(List.of(echo.endpoint()))
          .closeGrace(FOREVER)
          .pool(PoolConfig.builder().minConnections(2).build())
          .build();
      assertThat(client.call(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);
      Await.until(Duration.ofSeconds(10), () -> "warm connections: " + echo.connections(),
          () -> echo.connections() == 2);
      client.close(); // no call in flight: returns at once, the grace notwithstanding
      Await.until(Duration.ofSeconds(10), () -> "connections left: " + echo.connections(),
          () -> echo.connections() == 0);
    }
  }

  @Test
  void aServerDelayingForeverStallsInsteadOfOverflowing() throws Exception {
    FramedServer.Handler viaRequest = req -> req.replyAfter(FOREVER, req.payload());
    try (FramedServer delayed = FramedServer.start(
            FramedServer.delayed(FOREVER, FramedServer.echo()));
        FramedServer replying = FramedServer.start(viaRequest);
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(delayed.endpoint(), replying.endpoint()))
            .timeout(Duration.ofMillis(200))
            .lateAnswerWait(Duration.ZERO)
            .maxAttempts(1)
            .build()) {
      for (int i = 0; i < 4; i++) {
        assertThatThrownBy(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS))
            .cause().isInstanceOf(DeadlineExceededException.class);
      }
      assertThat(delayed.requests() + replying.requests()).isEqualTo(4);
    }
  }

  @Test
  void aPoolWithoutAWaitingQueueIsRefused() {
    assertThatThrownBy(() -> PoolConfig.builder().maxPendingAcquires(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxPendingAcquires: 0 (expected: > 0)");
  }
}

package dev.ballast.netty.moved;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.Backoff;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.Hedging;
import dev.ballast.netty.OutlierDetection;
import dev.ballast.netty.PoolConfig;
import dev.ballast.netty.RetryBudget;
import dev.ballast.netty.RetryPolicy;
import dev.ballast.netty.framed.FramedServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Code written against the names the retry, pool and outlier types had before they moved to
 * their packages (imports from {@code dev.ballast.netty}) compiles against the deprecated
 * aliases and runs: this file is that code.
 */
@SuppressWarnings("removal")
class OldNamesTest {

  @Test
  void codeWrittenAgainstTheOldNamesCompilesAndCalls() throws Exception {
    Backoff backoff = Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(10));
    try (FramedServer server = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(server.endpoint()))
            .retryPolicy(RetryPolicy.builder().maxAttempts(3).backoff(backoff)
                .budget(RetryBudget.create()).build())
            .retryBackoff(Backoff.fixed(Duration.ofMillis(1)))
            .hedging(Hedging.after(Duration.ofSeconds(1)))
            .pool(PoolConfig.builder().maxConnections(2).build())
            .outlierDetection(OutlierDetection.defaults())
            .build()) {
      assertThat(client.call(new byte[] {4}).get(10, TimeUnit.SECONDS)).containsExactly(4);
    }
    // an old-named backoff is a backoff of the new type, with its delays
    dev.ballast.netty.retry.Backoff moved = backoff;
    assertThat(moved.delayNanos(1, new java.util.Random(1))).isBetween(0L, 1_000_000L);
    assertThat(RetryPolicy.none().maxAttempts()).isEqualTo(1);
  }
}

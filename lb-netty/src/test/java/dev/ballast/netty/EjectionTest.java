package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.error.RemoteException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Item 4: a backend answering errors is ejected, and comes back after its back-off. */
class EjectionTest {

  @Test
  void erroringBackendIsEjectedThenReinstated() throws Exception {
    Duration base = Duration.ofSeconds(2);
    try (FramedServer good = FramedServer.start(FramedServer.echo());
        FramedServer bad = FramedServer.start(
            req -> CompletableFuture.failedFuture(new IllegalStateException("boom")));
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(bad.endpoint(), good.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .maxAttempts(1)
            .outlierDetection(OutlierDetection.builder().consecutiveFailures(5)
                .successRateThreshold(0).baseEjectionTime(base).jitter(0.2).build())
            .seed(7)
            .build()) {
      String badAddress = bad.endpoint().address();
      int errors = 0;
      for (int i = 0; i < 100 && !ejected(client, badAddress); i++) {
        try {
          client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(RemoteException.class)
              .hasMessageContaining("boom").hasMessageContaining(badAddress);
          assertThat(((RemoteException) e.getCause()).reachedServer()).isTrue();
          errors++;
        }
      }
      long ejectedAt = System.nanoTime();
      assertThat(ejected(client, badAddress)).isTrue();
      assertThat(errors).isEqualTo(5);
      assertThat(bad.requests()).isEqualTo(5);
      // While ejected, every call goes to the good backend.
      for (int i = 0; i < 20; i++) {
        assertThat(client.call(new byte[] {2}).get(10, TimeUnit.SECONDS)).containsExactly(2);
      }
      assertThat(bad.requests()).isEqualTo(5);
      // After the back-off (2 s +- 20%) it is picked again.
      Await.until(Duration.ofSeconds(10), () -> client.stats().toString(),
          () -> !ejected(client, badAddress));
      assertThat(System.nanoTime() - ejectedAt).isGreaterThanOrEqualTo(
          (long) (base.toNanos() * 0.8));
      for (int i = 0; i < 4; i++) {
        client.call(new byte[] {3}).handle((r, e) -> null).get(10, TimeUnit.SECONDS);
      }
      assertThat(bad.requests()).isEqualTo(7);
    }
  }

  private static boolean ejected(BallastClient<?, ?> client, String address) {
    return client.stats().stream().anyMatch(s -> s.address().equals(address) && s.ejected());
  }
}

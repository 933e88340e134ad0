package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Item 2: a backend killed during 10,000 concurrent calls. */
class BackendKillTest {

  private static final int CALLS = 10_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final List<FramedServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  @Test
  void everyCallEndsTypedAndUnwrittenCallsAreRetriedElsewhere() throws Exception {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      FramedServer s = FramedServer.start(FramedServer.delayed(Duration.ofMillis(2),
          FramedServer.echo()));
      servers.add(s);
      endpoints.add(s.endpoint());
    }
    FramedServer victim = servers.get(2);
    String victimAddress = victim.endpoint().address();
    CountDownLatch someAnswered = new CountDownLatch(CALLS / 5);
    AtomicLong lateNanos = new AtomicLong();
    List<CompletableFuture<byte[]>> calls = new ArrayList<>(CALLS);
    long[] starts = new long[CALLS];
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(Algorithm.ROUND_ROBIN)
        .timeout(TIMEOUT)
        .slowRequestThreshold(TIMEOUT)
        // Without ejection the dead backend keeps being picked, so that calls keep meeting a
        // refused connection there, and must be retried elsewhere.
        .outlierDetection(OutlierDetection.disabled())
        .pool(PoolConfig.builder().maxConnections(4).maxInFlightPerConnection(256)
            .maxPendingAcquires(CALLS).build())
        .build()) {
      for (int i = 0; i < CALLS; i++) {
        starts[i] = System.nanoTime();
        long start = starts[i];
        CompletableFuture<byte[]> f = client.call(new byte[] {(byte) i});
        f.whenComplete((r, e) -> {
          long over = System.nanoTime() - start - TIMEOUT.toNanos();
          lateNanos.accumulateAndGet(over, Math::max);
          someAnswered.countDown();
        });
        calls.add(f);
        if (i == CALLS / 2) {
          // Kill one backend while half the calls are not even issued yet.
          assertThat(someAnswered.await(30, TimeUnit.SECONDS)).isTrue();
          victim.close();
          // Once the client has seen the connection go, later calls picked for the victim
          // meet a refused connect: never written, so they must be retried elsewhere.
          Await.until(Duration.ofSeconds(10), () -> client.stats().toString(),
              () -> client.stats().stream().anyMatch(
                  s -> s.address().equals(victimAddress) && s.connections() == 0));
        }
      }
      int ok = 0;
      int failedOnVictim = 0;
      for (CompletableFuture<byte[]> f : calls) {
        try {
          f.get(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
          ok++;
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable c = e.getCause();
          assertThat(c).isInstanceOf(BallastException.class);
          BallastException b = (BallastException) c;
          assertThat(b.endpoint()).as(b.getMessage()).isEqualTo(victimAddress);
          // Only requests already written to the dead backend may fail: the rest were retried.
          assertThat(b.reachedServer()).as(b.getMessage()).isTrue();
          failedOnVictim++;
        }
      }
      assertThat(ok + failedOnVictim).isEqualTo(CALLS);
      assertThat(ok).isGreaterThan(CALLS / 2);
      // No call was answered (success or failure) more than 1 s after its deadline.
      assertThat(lateNanos.get()).isLessThan(TimeUnit.SECONDS.toNanos(1));
      // Calls after the kill reached the victim's pool and were refused, then retried.
      EndpointStats victimStats = client.stats().stream()
          .filter(s -> s.address().equals(victimAddress)).findFirst().orElseThrow();
      assertThat(victimStats.failures()).isGreaterThan(failedOnVictim);
      // a call leaves the count just after its future completes, on the thread that completed it
      Await.until(Duration.ofSeconds(10), () -> client.stats().toString(), () ->
          client.stats().stream().allMatch(s -> s.pending() == 0 && s.inFlight() == 0
              && s.pendingAcquires() == 0) && client.inFlightCalls() == 0);
    }
  }
}

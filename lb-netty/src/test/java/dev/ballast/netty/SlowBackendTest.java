package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item 5: a 10x slower backend (100 ms against 10 ms) gets a small share under P2C peak EWMA,
 * live on loopback. The latencies stand above what a call costs the client on a busy machine
 * (a few ms, more in its stalls): with 2 ms against 20 ms, at a load of 20 the fast backends'
 * measured latencies grew to near the slow one's and its share rose to 0.071.
 */
class SlowBackendTest {

  private static final int CALLS = 2000;
  /** Round robin's share is exact whatever the latencies: fewer calls show it. */
  private static final int ROUND_ROBIN_CALLS = 200;
  private static final int CONCURRENCY = 10;

  private final List<FramedServer> servers = new ArrayList<>();
  private final List<Endpoint> endpoints = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 5; i++) {
      Duration latency = Duration.ofMillis(i == 0 ? 100 : 10);
      FramedServer s = FramedServer.start(FramedServer.delayed(latency, FramedServer.echo()));
      servers.add(s);
      endpoints.add(s.endpoint());
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  @Test
  void p2cPeakEwmaAvoidsTheSlowBackend() throws Exception {
    double rr = slowShare(Algorithm.ROUND_ROBIN, ROUND_ROBIN_CALLS);
    double p2c = slowShare(Algorithm.P2C_PEAK_EWMA, CALLS);
    System.out.printf("slow backend share: round robin %.3f, p2c peak ewma %.3f%n", rr, p2c);
    assertThat(rr).isEqualTo(0.2);
    assertThat(p2c).isLessThan(rr / 3);
  }

  private double slowShare(Algorithm algorithm, int calls) throws Exception {
    long before = servers.get(0).requests();
    long total0 = servers.stream().mapToLong(FramedServer::requests).sum();
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints).balancer(algorithm).timeout(Duration.ofSeconds(10))
        // The run lasts a few seconds: a decay time of that order lets the estimates leave
        // the 30 ms default within it (with the default 10 s they would barely move).
        .balancerConfig(BalancerConfig.builder().decayTime(Duration.ofMillis(1250)).build())
        .build()) {
      AtomicInteger issued = new AtomicInteger();
      AtomicInteger failed = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(calls);
      for (int i = 0; i < CONCURRENCY; i++) {
        next(client, calls, issued, failed, done);
      }
      assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(failed.get()).isZero();
    }
    long slow = servers.get(0).requests() - before;
    long total = servers.stream().mapToLong(FramedServer::requests).sum() - total0;
    assertThat(total).isEqualTo(calls);
    return (double) slow / total;
  }

  // A closed loop: each completed call starts the next, CONCURRENCY calls in flight.
  private static void next(BallastClient<byte[], byte[]> client, int calls,
      AtomicInteger issued, AtomicInteger failed, CountDownLatch done) {
    if (issued.incrementAndGet() > calls) {
      return;
    }
    client.call(new byte[] {1}).whenComplete((r, e) -> {
      if (e != null) {
        failed.incrementAndGet();
      }
      done.countDown();
      next(client, calls, issued, failed, done);
    });
  }
}

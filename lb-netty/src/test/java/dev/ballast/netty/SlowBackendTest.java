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

/** Item 5: a 10x slower backend gets a small share under P2C peak EWMA, live on loopback. */
class SlowBackendTest {

  private static final int CALLS = 2000;
  private static final int CONCURRENCY = 10;

  private final List<FramedServer> servers = new ArrayList<>();
  private final List<Endpoint> endpoints = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 5; i++) {
      Duration latency = Duration.ofMillis(i == 0 ? 20 : 2);
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
    double rr = slowShare(Algorithm.ROUND_ROBIN);
    double p2c = slowShare(Algorithm.P2C_PEAK_EWMA);
    System.out.printf("slow backend share: round robin %.3f, p2c peak ewma %.3f%n", rr, p2c);
    assertThat(rr).isEqualTo(0.2);
    assertThat(p2c).isLessThan(rr / 3);
  }

  private double slowShare(Algorithm algorithm) throws Exception {
    long before = servers.get(0).requests();
    long total0 = servers.stream().mapToLong(FramedServer::requests).sum();
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints).balancer(algorithm).timeout(Duration.ofSeconds(10))
        // The run lasts about a second: a decay time of that order lets the estimates leave
        // the 30 ms default within it (with the default 10 s they would barely move).
        .balancerConfig(BalancerConfig.builder().decayTime(Duration.ofMillis(250)).build())
        .build()) {
      AtomicInteger issued = new AtomicInteger();
      AtomicInteger failed = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(CALLS);
      for (int i = 0; i < CONCURRENCY; i++) {
        next(client, issued, failed, done);
      }
      assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(failed.get()).isZero();
    }
    long slow = servers.get(0).requests() - before;
    long total = servers.stream().mapToLong(FramedServer::requests).sum() - total0;
    assertThat(total).isEqualTo(CALLS);
    return (double) slow / total;
  }

  // A closed loop: each completed call starts the next, CONCURRENCY calls in flight.
  private static void next(BallastClient<byte[], byte[]> client, AtomicInteger issued,
      AtomicInteger failed, CountDownLatch done) {
    if (issued.incrementAndGet() > CALLS) {
      return;
    }
    client.call(new byte[] {1}).whenComplete((r, e) -> {
      if (e != null) {
        failed.incrementAndGet();
      }
      done.countDown();
      next(client, issued, failed, done);
    });
  }
}

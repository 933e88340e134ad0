package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.health.HealthChecker;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.HealthServer;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP health checks decide on the status line: servers whose healthy answer has a 15 MiB body,
 * sent but for its last byte, are found healthy, and the checks hold no body (the client's
 * direct memory, from Netty's default allocator, which the servers do not use). The clock is a
 * manual one: the checks cannot time out; without a verdict at the head they would never end.
 */
class HealthCheckBodyTest {

  private static final int SERVERS = 8;
  private static final int BODY = 15 * 1024 * 1024;
  private static final long MIB = 1024 * 1024;

  private static long usedDirect() {
    return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric()
        .usedDirectMemory();
  }

  @ParameterizedTest
  @ValueSource(strings = {"http/1.1", "h2c"})
  void checksOfServersAnsweringHugeBodiesAreHealthyAndHoldNoBody(String protocol)
      throws Exception {
    boolean h2 = protocol.equals("h2c");
    List<HealthServer> servers = new ArrayList<>();
    AtomicLong now = new AtomicLong();
    try {
      for (int i = 0; i < SERVERS; i++) {
        servers.add(HealthServer.startWithHealthBody(h2, BODY));
      }
      long before = usedDirect();
      AtomicLong most = new AtomicLong(before);
      BallastClient.Builder<HttpRequest, HttpResponse> b = h2 ? BallastClient.http2()
          : BallastClient.http();
      try (BallastClient<HttpRequest, HttpResponse> client = b
          .endpoints(servers.stream().map(HealthServer::endpoint).toList())
          .balancer(Algorithm.ROUND_ROBIN)
          .outlierDetection(OutlierDetection.disabled())
          .ticker(now::get)
          .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
              .interval(Duration.ofSeconds(5)).initialJitter(Duration.ZERO).build()).build())
          .build()) {
        HealthChecker<?> checker = client.stack().healthChecker();
        // sampled while the checks run: the samples can only miss a peak, never add to one
        Await.until(Duration.ofSeconds(20), () -> checker.completed() + " checks ended of "
                + SERVERS + ", direct memory up to " + (most.get() - before) / MIB + " MiB",
            () -> {
              most.accumulateAndGet(usedDirect(), Math::max);
              return checker.completed() >= SERVERS;
            });
        for (Node<?> n : client.stack().nodes()) {
          assertThat(n.health()).as(n.address()).isEqualTo(Health.HEALTHY);
        }
        assertThat((most.get() - before) / MIB).as("MiB of direct memory held by %d checks",
            SERVERS).isLessThan(8);
        assertThat(servers).allSatisfy(s -> assertThat(s.checks()).isEqualTo(1));
      }
    } finally {
      servers.forEach(HealthServer::close);
    }
  }
}

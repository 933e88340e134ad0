package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.RemoteException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.retry.RetryBudget;
import dev.ballast.netty.testing.RefusedPort;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Filters, idempotent retries, the retry budget, metrics and the slow-request log. */
class StackFeaturesTest {

  @Test
  void filtersComposeInOrder() throws Exception {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    Filter<byte[], byte[]> a = (req, ctx, next) -> {
      order.add("a");
      return next.call(req).thenApply(r -> concat(r, "A"));
    };
    Filter<byte[], byte[]> b = (req, ctx, next) -> {
      order.add("b");
      return next.call(concat(req, "b"));
    };
    try (FramedServer s = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(s.endpoint())).filter(a).filter(b).build();
        BallastClient<byte[], byte[]> composed = BallastClient.framed()
            .endpoints(List.of(s.endpoint())).filter(a.andThen(b)).build()) {
      byte[] r = client.call("x".getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
      assertThat(new String(r, StandardCharsets.UTF_8)).isEqualTo("xbA");
      assertThat(order).containsExactly("a", "b");
      r = composed.call("y".getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
      assertThat(new String(r, StandardCharsets.UTF_8)).isEqualTo("ybA");
      assertThat(order).containsExactly("a", "b", "a", "b");
    }
  }

  private static byte[] concat(byte[] a, String s) {
    return (new String(a, StandardCharsets.UTF_8) + s).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void onlyIdempotentCallsAreRetriedAfterReachingAServer() throws Exception {
    AtomicInteger n = new AtomicInteger();
    // Fails every other request.
    FramedServer.Handler flaky = req -> n.getAndIncrement() % 2 == 0
        ? CompletableFuture.failedFuture(new IllegalStateException("flaky"))
        : CompletableFuture.completedFuture(req.payload());
    try (FramedServer s = FramedServer.start(flaky);
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(s.endpoint()))
            .outlierDetection(OutlierDetection.disabled())
            .build()) {
      Throwable t = catchThrowable(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS));
      assertThat(t).cause().isInstanceOf(RemoteException.class)
          .hasMessageContaining("attempt 1");
      assertThat(s.requests()).isEqualTo(1);
      n.set(0);
      assertThat(client.call(new byte[] {2}, CallOptions.idempotent()).get(10, TimeUnit.SECONDS))
          .containsExactly(2);
      assertThat(s.requests()).isEqualTo(3);
    }
  }

  @Test
  void anEmptyBudgetStopsRetries() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RefusedPort port = new RefusedPort();
        FramedServer good = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(port.endpoint(), good.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .retryBudget(RetryBudget.none())
            .outlierDetection(OutlierDetection.disabled())
            .meterRegistry(registry)
            .build()) {
      int refusedCalls = 0;
      for (int i = 0; i < 4; i++) {
        Throwable t = catchThrowable(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS));
        if (t != null) {
          assertThat(t).cause().isInstanceOf(ConnectFailedException.class);
          refusedCalls++;
        }
      }
      assertThat(refusedCalls).isEqualTo(2);
      assertThat(registry.get("ballast.client.retries.budget.exhausted").counter().count())
          .isEqualTo(2);
      assertThat(registry.get("ballast.client.requests").tag("outcome", "refused")
          .counter().count()).isEqualTo(2);
    }
  }

  @Test
  void aCallIsInTheMetricsBeforeItsCallerHearsOfIt() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BlockingQueue<CompletableFuture<byte[]>> held = new LinkedBlockingQueue<>();
    try (FramedServer holding = FramedServer.start(req -> {
          CompletableFuture<byte[]> reply = new CompletableFuture<>();
          held.add(reply);
          return reply;
        });
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(holding.endpoint()))
            .meterRegistry(registry)
            .build()) {
      String endpoint = holding.endpoint().address();
      for (int i = 1; i <= 3; i++) {
        // Attached before the answer exists: it runs as the future completes, on that thread.
        CompletableFuture<String> seen = client.call(new byte[] {1}).thenApply(r -> "calls "
            + registry.get("ballast.client.calls").tag("outcome", "success").timer().count()
            + ", requests " + registry.get("ballast.client.requests").tag("endpoint", endpoint)
                .tag("outcome", "success").counter().count()
            + ", latencies " + registry.get("ballast.client.latency").tag("endpoint", endpoint)
                .timer().count());
        held.poll(10, TimeUnit.SECONDS).complete(new byte[] {1});
        assertThat(seen.get(10, TimeUnit.SECONDS))
            .isEqualTo("calls " + i + ", requests " + i + ".0, latencies " + i);
      }
    }
  }

  @Test
  void micrometerMetricsAndSlowLog() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<String> slow = Collections.synchronizedList(new ArrayList<>());
    Logger jul = Logger.getLogger("dev.ballast.netty.slow");
    Handler h = new Handler() {
      @Override
      public void publish(LogRecord r) {
        slow.add(r.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    jul.addHandler(h);
    try (FramedServer fast = FramedServer.start(FramedServer.echo());
        FramedServer lazy = FramedServer.start(FramedServer.delayed(Duration.ofMillis(200),
            FramedServer.echo()));
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .name("orders")
            .endpoints(List.of(fast.endpoint(), lazy.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .slowRequestThreshold(Duration.ofMillis(150))
            .meterRegistry(registry)
            .build()) {
      for (int i = 0; i < 10; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      String lazyAddr = lazy.endpoint().address();
      assertThat(registry.get("ballast.client.requests").tag("client", "orders")
          .tag("endpoint", lazyAddr).tag("outcome", "success").counter().count()).isEqualTo(5);
      assertThat(registry.get("ballast.client.latency").tag("endpoint", lazyAddr).timer()
          .count()).isEqualTo(5);
      assertThat(registry.get("ballast.client.latency").tag("endpoint", lazyAddr).timer()
          .max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(200);
      assertThat(registry.get("ballast.client.calls").tag("outcome", "success").timer().count())
          .isEqualTo(10);
      // a call's future completes as its answer is read; its release follows on the event loop
      dev.ballast.netty.testing.Await.until(Duration.ofSeconds(10), () -> "the lazy endpoint idle",
          () -> registry.get("ballast.client.pending").tag("endpoint", lazyAddr).gauge()
              .value() == 0 && registry.get("ballast.client.connections")
              .tag("endpoint", lazyAddr).tag("state", "idle").gauge().value() == 1);
      assertThat(registry.get("ballast.client.acquires.pending").tag("endpoint", lazyAddr)
          .gauge().value()).isZero();
      assertThat(registry.get("ballast.client.retries").counter().count()).isZero();
      // Each of the lazy endpoint's requests was slow; each line names endpoint and attempt (a
      // fast one stalled past 150 ms on a loaded machine would be slow too: not counted here).
      assertThat(slow).filteredOn(line -> line.contains(lazyAddr)).hasSize(5)
          .allSatisfy(line -> assertThat(line)
              .startsWith("slow request: endpoint " + lazyAddr + ", attempt 1, latency ")
              .contains("client orders"));
      // and every line is over the threshold
      assertThat(slow).allSatisfy(line -> assertThat(Long.parseLong(
          line.replaceAll(".*, latency (\\d+) ms.*", "$1"))).isGreaterThanOrEqualTo(150));
      client.updateEndpoints(List.of(fast.endpoint()));
      String gone = lazyAddr;
      dev.ballast.netty.testing.Await.until(Duration.ofSeconds(10), () -> "meters of " + gone,
          () -> registry.find("ballast.client.pending").tag("endpoint", gone).gauges()
              .isEmpty());
      assertThat(registry.find("ballast.client.pending").gauges()).hasSize(1);
    } finally {
      jul.removeHandler(h);
    }
    // Closing the client removes the remaining endpoint meters.
    assertThat(registry.find("ballast.client.pending").gauges()).isEmpty();
  }
}

package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Ballast's policies in real gRPC channels against real servers on 127.0.0.1. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoliciesOverRealServersTest {

  private final Opened opened = new Opened();

  @AfterEach
  void tearDown() throws Exception {
    opened.close();
  }

  private TestServers servers(long... delays) throws IOException {
    return opened.servers(delays);
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    return opened.channel(builder);
  }

  private ManagedChannel channel(String target, String policy) {
    return channel(NettyChannelBuilder.forTarget(target).defaultLoadBalancingPolicy(policy));
  }

  /** Calls until every server has answered once (so every subchannel is READY); bounded. */
  private static void awaitAllServing(ManagedChannel ch, TestServers s, int count) {
    for (int i = 0; i < 5_000; i++) {
      boolean all = true;
      for (int j = 0; j < count; j++) {
        all &= s.calls(j) > 0;
      }
      if (all) {
        s.resetCounts();
        return;
      }
      TestServers.call(ch);
    }
    throw new AssertionError("not every server answered: " + java.util.Arrays.toString(
        s.callCounts()));
  }

  @Test
  void vnswrrSplitsSixHundredCallsExactlyByWeight() throws Exception {
    TestServers s = servers(0, 0, 0);
    ManagedChannel ch = channel(s.target("weight=1", "weight=2", "weight=3"), "vnswrr");
    awaitAllServing(ch, s, 3);

    for (int i = 0; i < 600; i++) {
      TestServers.call(ch);
    }

    assertThat(s.callCounts()).containsExactly(100, 200, 300);
  }

  @Test
  void vnswrrSelectedThroughDefaultServiceConfig() throws Exception {
    TestServers s = servers(0, 0, 0);
    @SuppressWarnings("unchecked")
    Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse(
        "{\"loadBalancingConfig\": [{\"vnswrr\": {}}]}");
    ManagedChannel ch = channel(NettyChannelBuilder
        .forTarget(s.target("weight=3", "weight=2", "weight=1"))
        .defaultServiceConfig(serviceConfig));
    awaitAllServing(ch, s, 3);

    for (int i = 0; i < 600; i++) {
      TestServers.call(ch);
    }

    assertThat(s.callCounts()).containsExactly(300, 200, 100);
  }

  @Test
  void peakEwmaSelectedThroughDefaultServiceConfigWithItsFields() throws Exception {
    // 2 s: a fast server's first answers on a busy machine (cold paths, stalls) took over
    // 200 ms, and with a 30 s decay time such a peak outlasts the run, so that the slow server
    // (200 ms then) won every draw against it: 14 calls once. A 2 s peak is out of their reach.
    TestServers s = servers(2_000, 0, 0, 0);
    @SuppressWarnings("unchecked")
    Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse("{\"loadBalancingConfig\":"
        + " [{\"p2c_peak_ewma\": {\"decayTime\": \"30s\", \"defaultRtt\": \"5ms\"}}]}");
    ManagedChannel ch = channel(NettyChannelBuilder.forTarget(s.target())
        .defaultServiceConfig(serviceConfig));
    awaitAllServing(ch, s, 4);

    for (int i = 0; i < 300; i++) {
      TestServers.call(ch);
    }

    // Sequential calls: once the slow server answered (2 s >> the others), P2C takes it only as
    // a probe of its estimate once that is 100 ms old (one call, answered in 2 s again), and the
    // next probe waits 4 x 2 s more: at most one call of the run.
    assertThat(s.calls(0)).isLessThanOrEqualTo(1);
    assertThat(s.calls(0) + s.calls(1) + s.calls(2) + s.calls(3)).isEqualTo(300);
  }

  /**
   * Ten servers, one answering 200 ms late; 2,000 calls from 16 threads after every server has
   * answered once. gRPC's round_robin ignores load; the load-aware policies avoid the slow one.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"round_robin, 160, 240", "p2c_peak_ewma, 0, 40", "least_loaded, 0, 100"})
  void slowServerGetsLittleTrafficUnderLoadAwarePolicies(String policy, int min, int max)
      throws Exception {
    TestServers s = servers(200, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    ManagedChannel ch = channel(s.target(), policy);
    awaitAllServing(ch, s, 10);

    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 125; i++) {
            TestServers.call(ch);
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    int total = 0;
    for (int c : s.callCounts()) {
      total += c;
    }
    System.out.printf("slow-server share under %s: %d of %d calls%n", policy, s.calls(0), total);
    assertThat(total).isEqualTo(2_000);
    assertThat(s.calls(0)).as("calls to the slow server under %s", policy).isBetween(min, max);
  }

  @ParameterizedTest
  @CsvSource({"least_loaded", "vnswrr"})
  void serverShutDownMidRunLosesAtMostItsCallsInFlight(String policy) throws Exception {
    TestServers s = servers(2, 2, 2);
    ManagedChannel ch = channel(s.target(), policy);
    awaitAllServing(ch, s, 3);

    int threads = 4;
    java.util.concurrent.CountDownLatch firstHundredFifty =
        new java.util.concurrent.CountDownLatch(150);
    AtomicInteger failures = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    int callsAtShutdown;
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 150; i++) {
            try {
              TestServers.call(ch);
            } catch (StatusRuntimeException e) {
              failures.incrementAndGet();
            }
            firstHundredFifty.countDown();
          }
        }));
      }
      assertThat(firstHundredFifty.await(30, TimeUnit.SECONDS)).isTrue();
      s.server(1).shutdownNow();
      assertThat(s.server(1).awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      callsAtShutdown = s.calls(1);
      for (Future<?> f : futures) {
        f.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    System.out.printf("%s: %d failures when a server was shut down mid-run%n", policy,
        failures.get());
    // At most the calls that were on the wire to it: one per thread.
    assertThat(failures.get()).isLessThanOrEqualTo(threads);
    assertThat(s.calls(1)).isEqualTo(callsAtShutdown);
    s.resetCounts();
    for (int i = 0; i < 200; i++) {
      TestServers.call(ch);
    }
    assertThat(s.calls(0) + s.calls(2)).isEqualTo(200);
    assertThat(s.calls(1)).isZero();
  }

  @Test
  void serverAddedThroughTheRegistryGetsItsShare() throws Exception {
    TestServers s = servers(0, 0, 0);
    EndpointRegistry registry = EndpointRegistry.global();
    String name = "added-" + System.nanoTime();
    registry.publish(name, "127.0.0.1:" + s.port(0) + ",127.0.0.1:" + s.port(1));
    ManagedChannel ch = channel("ballast://" + name, "vnswrr");
    awaitAllServing(ch, s, 2);
    for (int i = 0; i < 100; i++) {
      TestServers.call(ch);
    }
    assertThat(s.callCounts()).containsExactly(50, 50, 0);

    registry.publish(name,
        "127.0.0.1:" + s.port(0) + ",127.0.0.1:" + s.port(1) + ",127.0.0.1:" + s.port(2));
    awaitAllServing(ch, s, 3);
    for (int i = 0; i < 300; i++) {
      TestServers.call(ch);
    }

    assertThat(s.callCounts()).containsExactly(100, 100, 100);
  }

  @Test
  void unknownRegistryNameFailsCallsUntilPublished() throws Exception {
    TestServers s = servers(0);
    String name = "late-" + System.nanoTime();
    ManagedChannel ch = channel("ballast://" + name, "least_loaded");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TestServers.call(ch,
            io.grpc.CallOptions.DEFAULT))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("UNAVAILABLE")
        .hasMessageContaining(name);

    EndpointRegistry.global().publish(name, "127.0.0.1:" + s.port(0));
    ch.resetConnectBackoff();
    assertThat(TestServers.call(ch, io.grpc.CallOptions.DEFAULT.withWaitForReady())).isZero();
  }
}

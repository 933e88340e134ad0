package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.BallastClient;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * A framed lb-netty client on {@code <target of framed>} and a gRPC channel on {@code <target
 * of grpc>}, both VNSWRR, so that shares are exact over whole turns of the weights.
 */
final class Clients implements AutoCloseable {

  final BallastClient<byte[], byte[]> framed;
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final ManagedChannel grpc;
  // the gRPC channel's meters, from Micrometer's global registry
  final SimpleMeterRegistry grpcMeters = new SimpleMeterRegistry();
  private final String grpcTarget;
  final Backends backends;
  long failures;
  final java.util.List<String> failureCauses = new java.util.concurrent.CopyOnWriteArrayList<>();

  // when the clients were built: a failure cause says how long after, to tell a start-up failure
  private final long born = System.nanoTime();

  Clients(TestRegistry registry, Backends backends) {
    this.backends = backends;
    this.framed = BallastClient.framed().name("orders").source(registry.target("framed"))
        .balancer(Algorithm.VNSWRR).timeout(Duration.ofSeconds(2)).meterRegistry(meters).build();
    Metrics.addRegistry(grpcMeters);
    this.grpcTarget = registry.target("grpc");
    this.grpc = ManagedChannelBuilder.forTarget(grpcTarget)
        .defaultLoadBalancingPolicy("vnswrr").usePlaintext().build();
  }

  /** Returns the framed client's gauge or counter {@code ballast.source.<name>}. */
  double sourceMeter(String name) {
    return meters.get("ballast.source." + name).meter().measure().iterator().next().getValue();
  }

  /** Returns the gRPC channel's gauge or counter {@code ballast.source.<name>}. */
  double grpcSourceMeter(String name) {
    return grpcMeters.get("ballast.source." + name).tag("target", grpcTarget).meter().measure()
        .iterator().next().getValue();
  }

  /** Waits (up to 10 s) until the framed client holds the given number of endpoints. */
  void awaitFramedEndpoints(int n) throws Exception {
    try {
      framed.endpointsWhen(es -> es.size() == n).get(10, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("framed client has " + framed.endpoints() + ", not " + n);
    }
  }

  /** One framed call and one gRPC call; counts failures instead of throwing. */
  void callBoth() {
    byte[] payload = {1};
    try {
      framed.call(payload).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      failed("framed", e);
    }
    try {
      ClientCalls.blockingUnaryCall(grpc, Backends.CALL,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), payload);
    } catch (RuntimeException e) {
      failed("grpc", e);
    }
  }

  private void failed(String client, Exception e) {
    failures++;
    if (failureCauses.size() < 5) {
      failureCauses.add(client + " at " + (System.nanoTime() - born) / 1_000_000 + " ms: " + e);
    }
  }

  /** Calls both clients for a while. */
  void callFor(Duration d) {
    long end = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < end) {
      callBoth();
    }
  }

  /**
   * Waits (up to 10 s) until a round of 20 turns of the weights gives every backend exactly 20
   * times its weight on both clients (backend i has weight weights[i]; 0: not registered).
   */
  void awaitShares(int... weights) {
    int total = Arrays.stream(weights).sum();
    long[] want = Arrays.stream(weights).mapToLong(w -> 20L * w).toArray();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long[] framedGot = null;
    long[] grpcGot = null;
    while (System.nanoTime() < end) {
      backends.resetCounts();
      for (int i = 0; i < 20 * total; i++) {
        callBoth();
      }
      framedGot = backends.framedCounts();
      grpcGot = backends.grpcCounts();
      if (Arrays.equals(framedGot, want) && Arrays.equals(grpcGot, want)) {
        return;
      }
    }
    assertThat(framedGot).as("framed calls per backend").containsExactly(want);
    assertThat(grpcGot).as("gRPC calls per backend").containsExactly(want);
  }

  /** Calls until the condition holds; returns the nanoseconds it took; fails after 10 s. */
  long callUntil(BooleanSupplier condition) {
    long start = System.nanoTime();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(10)) {
        throw new AssertionError("condition not met within 10 s");
      }
      callBoth();
    }
    return System.nanoTime() - start;
  }

  @Override
  public void close() throws InterruptedException {
    framed.close();
    grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    Metrics.removeRegistry(grpcMeters);
  }
}

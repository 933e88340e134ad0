package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.source.Registrar;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.error.ClientClosedException;
import dev.ballast.netty.error.DeadlineExceededException;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For each registry, a framed client started while the registry is down: a call made then
 * waits for the source's first endpoints and is answered once the registry is back, a call
 * whose deadline passes first fails with {@link DeadlineExceededException}; and past the
 * client's timeout with the registry still down, calls fail at once again; closing the client
 * ends the waiting calls with {@link ClientClosedException}. A gRPC channel on
 * the registry's target, as on a DNS name that does not resolve, fails its calls UNAVAILABLE
 * (unless wait-for-ready) once the source reports its failure, and serves once it is back.
 */
class StartupWaitTest {

  private static final byte[] PAYLOAD = {1};

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.ballast.discovery.RegistryScenarioTest#registries")
  void aCallMadeBeforeTheFirstEndpointsWaitsForThem(String kind) throws Exception {
    try (TestRegistry registry = RegistryScenarioTest.open(kind);
        Backends backends = new Backends();
        Registrar registrar = registry.registrar(Duration.ofSeconds(30))) {
      Backends.Backend backend = backends.add();
      registrar.register("framed", Endpoint.parse(backend.framedAddress()));
      registry.stop();
      try (BallastClient<byte[], byte[]> client = BallastClient.framed()
          .source(registry.target("framed")).timeout(Duration.ofSeconds(60)).build()) {
        CompletableFuture<byte[]> early = client.call(PAYLOAD);
        CompletableFuture<byte[]> shortDeadline =
            client.call(PAYLOAD, CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)));
        assertThatThrownBy(() -> shortDeadline.get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(DeadlineExceededException.class);
        assertThat(early).as("a call waiting for the registry").isNotDone();
        assertThat(backend.framedCalls.get()).isZero();

        registry.restart();
        assertThat(early.get(30, TimeUnit.SECONDS)).isEqualTo(PAYLOAD);
        assertThat(backend.framedCalls.get()).isEqualTo(1);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.ballast.discovery.RegistryScenarioTest#registries")
  void closingTheClientEndsTheWaitingCalls(String kind) throws Exception {
    try (TestRegistry registry = RegistryScenarioTest.open(kind)) {
      registry.stop();
      CompletableFuture<byte[]> waiting;
      try (BallastClient<byte[], byte[]> client = BallastClient.framed()
          .source(registry.target("framed")).timeout(Duration.ofSeconds(60)).build()) {
        waiting = client.call(PAYLOAD);
        assertThat(waiting).isNotDone();
      }
      assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(ClientClosedException.class)
          .hasMessageContaining("closed before its source gave endpoints");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.ballast.discovery.RegistryScenarioTest#registries")
  void aGrpcCallOnATargetWhoseRegistryIsDownFailsUnavailable(String kind) throws Exception {
    try (TestRegistry registry = RegistryScenarioTest.open(kind);
        Backends backends = new Backends();
        Registrar registrar = registry.registrar(Duration.ofSeconds(30))) {
      Backends.Backend backend = backends.add();
      registrar.register("grpc", Endpoint.parse(backend.grpcAddress()));
      registry.stop();
      // ZooKeeper's source waits out its connection timeout (10 s by default) before it reports
      // the failure: 1 s here. The etcd source's reads time out in 3 s.
      String target = kind.equals("zookeeper")
          ? registry.target("grpc") + "?connectionTimeout=1s" : registry.target("grpc");
      ManagedChannel channel = ManagedChannelBuilder.forTarget(target)
          .defaultLoadBalancingPolicy("round_robin").usePlaintext().build();
      try {
        assertThatThrownBy(() -> call(channel, io.grpc.CallOptions.DEFAULT))
            .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("has given no endpoints yet");
            });
        registry.restart();
        // wait-for-ready: the call waits for the registry's endpoints, then is served
        assertThat(call(channel, io.grpc.CallOptions.DEFAULT.withWaitForReady())).isEqualTo(PAYLOAD);
        assertThat(backend.grpcCalls.get()).isEqualTo(1);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static byte[] call(ManagedChannel channel, io.grpc.CallOptions options) {
    return ClientCalls.blockingUnaryCall(channel, Backends.CALL,
        options.withDeadlineAfter(30, TimeUnit.SECONDS), PAYLOAD);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.ballast.discovery.RegistryScenarioTest#registries")
  void pastTheClientsTimeoutWithoutEndpointsCallsFailAtOnce(String kind) throws Exception {
    try (TestRegistry registry = RegistryScenarioTest.open(kind)) {
      registry.stop();
      try (BallastClient<byte[], byte[]> client = BallastClient.framed()
          .source(registry.target("framed")).timeout(Duration.ofMillis(500)).build()) {
        // Within the first 500 ms calls wait (and end at their deadline); after, they fail at
        // once with no endpoint. Bounded: 100 calls of at most 200 ms each.
        Throwable last = null;
        for (int i = 0; i < 100 && !(last instanceof NoAvailableEndpointException); i++) {
          CompletableFuture<byte[]> call =
              client.call(PAYLOAD, CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)));
          try {
            call.get(10, TimeUnit.SECONDS);
          } catch (ExecutionException e) {
            last = e.getCause();
          }
        }
        assertThat(last).isInstanceOf(NoAvailableEndpointException.class);
      }
    }
  }
}

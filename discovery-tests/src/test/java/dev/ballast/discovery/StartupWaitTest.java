package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.source.Registrar;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.DeadlineExceededException;
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
 * client's timeout with the registry still down, calls fail at once again.
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

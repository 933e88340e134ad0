package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.Registrar;
import dev.ballast.core.source.Registration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For each registry: a malformed entry is skipped and counted while the others serve; the
 * registry server is killed under load and no call fails, the endpoints stay and the staleness
 * grows; it restarts on the same data, and a weight changed during the outage and a server
 * registered after it reach the clients.
 */
class RegistryOutageTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.ballast.discovery.RegistryScenarioTest#registries")
  void anOutageKeepsTheEndpointsAndChangesArriveAfterIt(String kind) throws Exception {
    try (TestRegistry registry = RegistryScenarioTest.open(kind);
        Backends backends = new Backends();
        Registrar registrar = registry.registrar(Duration.ofSeconds(30))) {
      List<Registration[]> regs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Backends.Backend b = backends.add();
        regs.add(new Registration[] {
            registrar.register("framed", Endpoint.parse(b.framedAddress())),
            registrar.register("grpc", Endpoint.parse(b.grpcAddress()))});
      }
      registry.putRaw("framed", "garbage", "127.0.0.1:notaport");
      registry.putRaw("grpc", "garbage", "127.0.0.1:notaport");
      Clients clients = new Clients(registry, backends);
      try (clients) {
        clients.awaitFramedEndpoints(3);
        clients.awaitShares(1, 1, 1);
        EndpointFeed feed = clients.framed.feed();
        assertThat(feed.entriesRejected()).as("malformed entries skipped").isEqualTo(1);
        assertThat(clients.sourceMeter("rejected")).isEqualTo(1.0);
        assertThat(clients.sourceMeter("endpoints")).isEqualTo(3.0);
        assertThat(clients.sourceMeter("up")).isEqualTo(1.0);
        // the gRPC channel's source, in the global registry
        assertThat(clients.grpcSourceMeter("rejected")).isEqualTo(1.0);
        assertThat(clients.grpcSourceMeter("endpoints")).isEqualTo(3.0);
        assertThat(clients.grpcSourceMeter("up")).isEqualTo(1.0);

        registry.stop();
        clients.callUntil(() -> !feed.isUp() && clients.grpcSourceMeter("up") == 0);
        clients.callFor(Duration.ofMillis(500));
        double staleness = clients.sourceMeter("staleness");
        double grpcStaleness = clients.grpcSourceMeter("staleness");
        assertThat(clients.sourceMeter("up")).isZero();
        // meanwhile: a weight change, written by the registration once the server is back
        for (Registration r : regs.get(0)) {
          r.update(r.endpoint().withWeight(3));
        }
        clients.callFor(Duration.ofSeconds(1));
        assertThat(clients.sourceMeter("staleness")).isGreaterThan(staleness + 0.9);
        assertThat(clients.grpcSourceMeter("staleness")).isGreaterThan(grpcStaleness + 0.9);
        assertThat(clients.grpcSourceMeter("endpoints")).isEqualTo(3.0);
        assertThat(clients.framed.endpoints()).hasSize(3);
        assertThat(clients.failures).as("calls failed during the outage: "
            + clients.failureCauses).isZero();

        registry.restart();
        clients.callUntil(() -> feed.isUp() && clients.grpcSourceMeter("up") == 1);
        assertThat(clients.sourceMeter("staleness")).isZero();
        assertThat(clients.grpcSourceMeter("staleness")).isZero();
        clients.awaitShares(3, 1, 1);
        Backends.Backend fourth = backends.add();
        registrar.register("framed", Endpoint.parse(fourth.framedAddress()));
        registrar.register("grpc", Endpoint.parse(fourth.grpcAddress()));
        clients.awaitShares(3, 1, 1, 1);
        assertThat(clients.failures).as("failed calls: " + clients.failureCauses).isZero();
      }
      assertThat(clients.grpcMeters.find("ballast.source.up").meters())
          .as("the gRPC channel's source meters once it shut down").isEmpty();
    }
  }
}

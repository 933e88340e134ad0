package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.source.EndpointFeed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For each registry: the registry comes to list nothing while every server is up (ZooKeeper
 * restarted on an empty data directory, etcd's prefix deleted); a framed lb-netty client and a
 * gRPC channel keep their endpoints and no call fails; the next listing is applied in full; a
 * user's own empty update still empties the client.
 */
class EmptyListingTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.ballast.discovery.RegistryScenarioTest#registries")
  void anEmptyListingKeepsTheLastEndpointsAndTheNextListingReplacesThem(String kind)
      throws Exception {
    try (TestRegistry registry = RegistryScenarioTest.open(kind);
        Backends backends = new Backends()) {
      for (int i = 0; i < 2; i++) {
        Backends.Backend b = backends.add();
        registry.putRaw("framed", b.framedAddress(), b.framedAddress());
        registry.putRaw("grpc", b.grpcAddress(), b.grpcAddress());
      }
      Clients clients = new Clients(registry, backends);
      try (clients) {
        clients.awaitFramedEndpoints(2); // before its first push, a client has no endpoint
        clients.awaitShares(1, 1);
        EndpointFeed feed = clients.framed.feed();

        registry.wipe();
        assertThat(registry.holds("framed", backends.get(0).framedAddress())).isFalse();
        clients.callUntil(feed::keepsLastSet);
        clients.awaitShares(1, 1);
        clients.callFor(Duration.ofMillis(500));
        assertThat(clients.framed.endpoints()).hasSize(2);
        assertThat(feed.endpointCount()).isEqualTo(2);
        assertThat(clients.failures).as("failed calls: " + clients.failureCauses).isZero();

        // the next listing replaces the kept set
        Backends.Backend third = backends.add();
        registry.putRaw("framed", third.framedAddress(), third.framedAddress());
        registry.putRaw("grpc", third.grpcAddress(), third.grpcAddress());
        clients.awaitShares(0, 0, 1);
        clients.callUntil(() -> !feed.keepsLastSet()); // marked just after the sink took it
        assertThat(clients.failures).as("failed calls: " + clients.failureCauses).isZero();

        // the user's own code is trusted: an explicit empty set empties the client
        clients.framed.updateEndpoints(List.of());
        assertThat(clients.framed.endpoints()).isEmpty();
      }
    }
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.netty.framed.FramedServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Label subsets in the client stack, over real framed backends on loopback. */
class SubsetRoutingTest {

  private static final CallOptions ZONE_A = CallOptions.DEFAULT.withLabels(RequestLabels.of("zone", "a"));
  private static final CallOptions ZONE_B = CallOptions.DEFAULT.withLabels(Map.of("zone", "b"));
  private static final CallOptions ZONE_C = CallOptions.DEFAULT.withLabels(Map.of("zone", "c"));

  private final List<FramedServer> servers = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 4; i++) {
      servers.add(FramedServer.start(FramedServer.echo()));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  /** Servers 0 and 1 in zone a, 2 and 3 in zone b. */
  private List<Endpoint> zones(String... zoneOfServer) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < zoneOfServer.length; i++) {
      out.add(Endpoint.of("127.0.0.1", servers.get(i).port(), 1, Map.of("zone", zoneOfServer[i])));
    }
    return out;
  }

  private BallastClient<byte[], byte[]> client(FallbackPolicy policy, Map<String, String> dflt) {
    return BallastClient.framed()
        .endpoints(zones("a", "a", "b", "b"))
        .balancer(Algorithm.ROUND_ROBIN)
        .subsets(List.of(Set.of("zone")), policy, dflt)
        .build();
  }

  private static void calls(BallastClient<byte[], byte[]> client, CallOptions options, int n)
      throws Exception {
    for (int i = 0; i < n; i++) {
      byte[] payload = {(byte) i};
      assertThat(client.call(payload, options).get(10, TimeUnit.SECONDS)).containsExactly(payload);
    }
  }

  private long[] requests() {
    long[] r = new long[servers.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = servers.get(i).requests();
    }
    return r;
  }

  private static void assertIdle(BallastClient<byte[], byte[]> client) {
    assertThat(client.stats()).allSatisfy(s -> {
      assertThat(s.pending()).isZero();
      assertThat(s.inFlight()).isZero();
    });
  }

  @Test
  void labelsReachOnlyMatchingBackendsAndUnmatchedLabelsFailUnderNoFallback() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(FallbackPolicy.NO_FALLBACK, null)) {
      assertThat(client.balancerName()).isEqualTo("label_subset(round_robin)");
      calls(client, ZONE_A, 100);
      assertThat(requests()).containsExactly(50, 50, 0, 0);
      calls(client, ZONE_B, 60);
      assertThat(requests()).containsExactly(50, 50, 30, 30);

      assertThatThrownBy(() -> client.call(new byte[] {1}, ZONE_C).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(NoAvailableEndpointException.class)
          .hasMessageContaining("{zone=c}").hasMessageContaining("NO_FALLBACK");
      // A call without labels matches no subset either.
      assertThatThrownBy(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(NoAvailableEndpointException.class);
      assertThat(requests()).containsExactly(50, 50, 30, 30);
      assertIdle(client);
    }
  }

  @Test
  void anyEndpointFallbackSpreadsUnmatchedCallsOverEveryBackend() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(FallbackPolicy.ANY_ENDPOINT, null)) {
      calls(client, ZONE_C, 100);
      assertThat(requests()).containsExactly(25, 25, 25, 25);
      calls(client, CallOptions.DEFAULT, 4);
      assertThat(requests()).containsExactly(26, 26, 26, 26);
      calls(client, ZONE_B, 10);
      assertThat(requests()).containsExactly(26, 26, 31, 31);
      assertIdle(client);
    }
  }

  @Test
  void defaultSubsetFallbackSendsUnmatchedCallsToTheDefaultLabels() throws Exception {
    try (BallastClient<byte[], byte[]> client =
        client(FallbackPolicy.DEFAULT_SUBSET, Map.of("zone", "b"))) {
      calls(client, ZONE_C, 40);
      assertThat(requests()).containsExactly(0, 0, 20, 20);
      calls(client, ZONE_A, 10);
      assertThat(requests()).containsExactly(5, 5, 20, 20);
      assertIdle(client);
    }
  }

  @Test
  void anUpdateThatChangesLabelsMovesTrafficAndDrainsRemovedEndpoints() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(FallbackPolicy.NO_FALLBACK, null)) {
      calls(client, ZONE_A, 20);
      calls(client, ZONE_B, 20);
      assertThat(requests()).containsExactly(10, 10, 10, 10);

      // Server 1 moves to zone b; server 3 leaves.
      client.updateEndpoints(zones("a", "b", "b"));
      calls(client, ZONE_A, 20);
      assertThat(requests()).containsExactly(30, 10, 10, 10);
      calls(client, ZONE_B, 30);
      assertThat(requests()).containsExactly(30, 25, 25, 10);
      assertThat(client.endpoints()).hasSize(3);

      // Back: server 1 to zone a, and zone b empties when server 2 becomes zone c.
      client.updateEndpoints(zones("a", "a", "c"));
      calls(client, ZONE_A, 10);
      assertThat(requests()).containsExactly(35, 30, 25, 10);
      assertThatThrownBy(() -> client.call(new byte[] {1}, ZONE_B).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(NoAvailableEndpointException.class)
          .hasMessageContaining("{zone=b}");
      calls(client, ZONE_C, 3);
      assertThat(requests()).containsExactly(35, 30, 28, 10);
      assertIdle(client);
    }
  }

  @Test
  void builderChecksTheSubsetSettings() {
    assertThatThrownBy(() -> BallastClient.framed()
        .subsets(List.of(), FallbackPolicy.NO_FALLBACK, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("selectors");
    assertThatThrownBy(() -> BallastClient.framed()
        .subsets(List.of(Set.of("zone")), FallbackPolicy.DEFAULT_SUBSET, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultSubset");
    assertThatThrownBy(() -> BallastClient.framed()
        .subsets(List.of(Set.of("")), FallbackPolicy.NO_FALLBACK, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty key");
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.core.Node;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.KeyedModuloPolicy;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.RefusedPort;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A call's key ({@code CallOptions.withKey}) picks its backend over real connections: every call
 * of a key reaches the backend lb-core's balancer of the same algorithm and settings names for
 * it, whatever else the client does, and calls without a key still spread.
 */
class KeyRoutingTest {

  private final List<FramedServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  @ParameterizedTest
  @EnumSource(value = Algorithm.class, names = {"RING_HASH", "KETAMA", "MAGLEV"})
  void everyCallOfAKeyReachesTheBackendItsHashNames(Algorithm algorithm) throws Exception {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      FramedServer s = FramedServer.start(FramedServer.echo());
      servers.add(s);
      endpoints.add(Endpoint.of("127.0.0.1", s.port(), 1 + i % 2, Map.of("name", "s" + i)));
    }
    HashConfig hashConfig = HashConfig.builder().keyHash(KeyHash.MURMUR).nameLabel("name")
        .tableSize(251).build();
    HashBalancer<Integer> expected = (HashBalancer<Integer>) algorithm.<Integer>create(
        BalancerConfig.defaults(), hashConfig);
    expected.update(endpoints, endpoints::indexOf);
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(algorithm, hashConfig)
        .build()) {
      for (int k = 0; k < 200; k++) {
        String key = "user-" + k;
        Node<Integer> node = expected.pick(key);
        node.cancel();
        long before = servers.get(node.value()).requests();
        byte[] payload = key.getBytes(StandardCharsets.UTF_8);
        assertThat(client.call(payload, CallOptions.DEFAULT.withKey(key))
            .get(10, TimeUnit.SECONDS)).containsExactly(payload);
        assertThat(servers.get(node.value()).requests()).as("backend of %s", key)
            .isEqualTo(before + 1);
      }
      long[] before = servers.stream().mapToLong(FramedServer::requests).toArray();
      for (int i = 0; i < 200; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      for (int i = 0; i < servers.size(); i++) {
        assertThat(servers.get(i).requests()).as("keyless calls to backend %d", i)
            .isGreaterThan(before[i]);
      }
    }
  }

  @Test
  void aKeyedCallsRetryStaysOnItsKeysEndpoint() throws Exception {
    FramedServer up = FramedServer.start(FramedServer.echo());
    servers.add(up);
    try (RefusedPort refusing = new RefusedPort()) {
      List<Endpoint> endpoints = List.of(refusing.endpoint(), up.endpoint());
      HashBalancer<Integer> expected = (HashBalancer<Integer>) Algorithm.MAGLEV
          .<Integer>create(BalancerConfig.defaults(), HashConfig.defaults());
      expected.update(endpoints, endpoints::indexOf);
      String key = null;
      for (int k = 0; key == null; k++) { // a key of the refusing endpoint
        Node<Integer> n = expected.pick("user-" + k);
        n.cancel();
        key = n.value() == 0 ? "user-" + k : null;
      }
      try (BallastClient<byte[], byte[]> client = BallastClient.framed().endpoints(endpoints)
          .balancer(Algorithm.MAGLEV, HashConfig.defaults()).build()) {
        assertThat(client.call(new byte[] {1}, CallOptions.DEFAULT.withKey(key)))
            .failsWithin(10, TimeUnit.SECONDS);
        assertThat(up.requests()).as("the other endpoint holds no key of it").isZero();
      }
    }
  }

  @Test
  void aTeamsKeyedDistributorGetsEachCallsKey() throws Exception {
    if (PolicyRegistry.defaultRegistry().find(KeyedModuloPolicy.NAME).isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new KeyedModuloPolicy());
    }
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      FramedServer s = FramedServer.start(FramedServer.echo());
      servers.add(s);
      endpoints.add(Endpoint.of("127.0.0.1", s.port()));
    }
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(KeyedModuloPolicy.NAME)
        .build()) {
      for (int k = 0; k < 100; k++) {
        String key = "tenant-" + k;
        FramedServer server = servers.get(KeyedModuloPolicy.expected(key, 4));
        long before = server.requests();
        client.call(new byte[] {1}, CallOptions.DEFAULT.withKey(key)).get(10, TimeUnit.SECONDS);
        assertThat(server.requests()).as("backend of %s", key).isEqualTo(before + 1);
      }
    }
  }
}

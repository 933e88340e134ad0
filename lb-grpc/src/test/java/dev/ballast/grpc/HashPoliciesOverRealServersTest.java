package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The key-hashing policies in real channels against real servers on 127.0.0.1: the key from the
 * gRFC A76 header, the same key through the call option, and ballast_ring_hash beside gRPC-java's
 * own ring_hash in a channel of its own over the same servers.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HashPoliciesOverRealServersTest {

  private static final Metadata.Key<String> KEY =
      Metadata.Key.of("x-shard-key", Metadata.ASCII_STRING_MARSHALLER);

  static {
    System.setProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY", "true");
  }

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private ManagedChannel channel(String target, String policy, Map<String, ?> config) {
    ManagedChannel ch = NettyChannelBuilder.forTarget(target).usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, config))))
        .build();
    closeables.add(() -> {
      ch.shutdownNow();
      ch.awaitTermination(10, TimeUnit.SECONDS);
    });
    return ch;
  }

  private static int callWithKey(Channel ch, String key) {
    Metadata md = new Metadata();
    md.put(KEY, key);
    return TestServers.call(ClientInterceptors.intercept(ch,
        MetadataUtils.newAttachHeadersInterceptor(md)));
  }

  @Test
  void ballastRingHashSendsEachKeyWhereGrpcJavasRingHashDoes() throws Exception {
    TestServers s = TestServers.start(0, 0, 0, 0, 0);
    closeables.add(s);
    Map<String, ?> config = Map.of("requestHashHeader", "x-shard-key");
    ManagedChannel ours = channel(s.target(), "ballast_ring_hash", config);
    ManagedChannel grpc = channel(s.target(), "ring_hash_experimental", config);

    int[] perServer = new int[5];
    for (int k = 0; k < 300; k++) {
      String key = "customer-" + k;
      int server = callWithKey(grpc, key);
      assertThat(callWithKey(ours, key)).as("server for %s", key).isEqualTo(server);
      perServer[server]++;
    }
    assertThat(perServer).as("keys per server").doesNotContain(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ballast_ring_hash", "ketama", "maglev"})
  void theHeaderAndTheCallOptionGiveTheSameServerEveryTime(String policy) throws Exception {
    TestServers s = TestServers.start(0, 0, 0, 0);
    closeables.add(s);
    ManagedChannel ch = channel(s.target("weight=1", "weight=2", "weight=1", "weight=3"), policy,
        Map.of("requestHashHeader", "x-shard-key", "loadBound", 1.25));
    for (int k = 0; k < 50; k++) {
      String key = "session-" + k;
      int first = callWithKey(ch, key);
      assertThat(callWithKey(ch, key)).isEqualTo(first);
      assertThat(TestServers.call(ch, CallOptions.DEFAULT.withOption(
          HashLoadBalancerProvider.REQUEST_KEY, key))).isEqualTo(first);
    }
  }
}

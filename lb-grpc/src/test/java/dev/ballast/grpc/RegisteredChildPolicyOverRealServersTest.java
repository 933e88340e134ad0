package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.Distributor;
import dev.ballast.core.engine.DistributorBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A policy registered in lb-core's registry by a user is a child of gRPC's {@code label_subset}
 * and of {@code locality} by its name, with its own option, over real servers: the test's policy
 * sends every call to one node of its set (the {@code index}-th), which no built-in does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegisteredChildPolicyOverRealServersTest {

  private static final String NAME = "test_one_node";

  /** Every pick is the {@code index}-th node of the set (by the set's order). */
  static final class OneNode implements BalancingPolicy<Values> {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public OptionSet<Values, ?> options() {
      return OptionSet.ofValues(NAME, v -> { }, List.of(
          Values.option("index", ValueType.INT, 0, "1", "x")));
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      int index = config.get("index", 0);
      return new DistributorBalancer<>(NAME, common, new Distributor.Factory() {
        @Override
        public <U> Distributor<U> over(List<Node<U>> nodes, int[] weights, BalancerConfig c) {
          Node<U> only = nodes.get(Math.min(index, nodes.size() - 1));
          return () -> only;
        }
      });
    }
  }

  static {
    PolicyRegistry.defaultRegistry().register(new OneNode());
  }

  private TestServers servers;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (servers != null) {
      servers.close();
    }
  }

  private static void callTimes(Channel ch, int n) {
    for (int i = 0; i < n; i++) {
      TestServers.call(ch, CallOptions.DEFAULT);
    }
  }

  @Test
  void aRegisteredPolicyBalancesEachLabelSubset() throws Exception {
    servers = TestServers.start(0, 0, 0, 0);
    channel = servers.channel("label_subset", "{'selectors': [['zone']],"
        + " 'childPolicy': [{'" + NAME + "': {'index': 1}}]}", "zone=a", "zone=a", "zone=b",
        "zone=b");
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("x-lb-zone", Metadata.ASCII_STRING_MARSHALLER), "b");
    Channel zoneB = ClientInterceptors.intercept(channel,
        MetadataUtils.newAttachHeadersInterceptor(md));
    // until server 3 is READY the engine's search for an open node may pass the pick to 2
    for (int i = 0; i < 1_000 && servers.calls(3) == 0; i++) {
      callTimes(zoneB, 1);
    }
    servers.resetCounts();
    callTimes(zoneB, 100);
    // zone b's set is servers 2 and 3; index 1 is server 3, every time
    assertThat(new int[] {servers.calls(0), servers.calls(1), servers.calls(2), servers.calls(3)})
        .containsExactly(0, 0, 0, 100);
  }

  @Test
  void aRegisteredPolicyBalancesEachLocality() throws Exception {
    servers = TestServers.start(0, 0, 0, 0);
    channel = servers.channel("locality", "{'localZone': 'b', 'callerZones': {'a': 1, 'b': 1},"
        + " 'minClusterSize': 1, 'childPolicy': [{'" + NAME + "': {}}]}", "zone=a", "zone=a",
        "zone=b", "zone=b");
    for (int i = 0; i < 1_000 && servers.calls(2) == 0; i++) {
      callTimes(channel, 1); // until server 2 is READY (see above)
    }
    servers.resetCounts();
    callTimes(channel, 100);
    // all in the local zone b (equal callers and endpoints), on its first node
    assertThat(new int[] {servers.calls(0), servers.calls(1), servers.calls(2), servers.calls(3)})
        .containsExactly(0, 0, 100, 0);
  }
}

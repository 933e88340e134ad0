package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile updates through real channels to real servers on 127.0.0.1: an address list a policy
 * rejects, an empty list, names and configs that cannot work. A channel never panics; each call
 * fails with a status naming the cause, the last good set stays in force, a rejected list starts
 * no subchannel, and the next good list is served.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileUpdatesOverRealChannelsTest {

  // Σ weight/gcd = 33554433 virtual nodes: more than VNSWRR's ring holds.
  private static final String RING_TOO_LARGE_0 = "weight=16777216";
  private static final String RING_TOO_LARGE_1 = "weight=16777217";

  private final Opened opened = new Opened();

  @AfterEach
  void tearDown() throws Exception {
    opened.close();
  }

  private TestServers servers(int n) throws Exception {
    return opened.servers(new long[n]);
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    return opened.channel(builder);
  }

  private static String name(String prefix) {
    return prefix + "-" + System.nanoTime();
  }

  private static String at(TestServers s, int i, String attributes) {
    return "127.0.0.1:" + s.port(i) + (attributes.isEmpty() ? "" : ";" + attributes);
  }

  private static StatusRuntimeException failure(Channel ch) {
    return catchThrowableOfType(StatusRuntimeException.class, () -> TestServers.call(ch));
  }

  /** Skips the updates the channel's resolution retries repeat until one is OK. */
  private static void awaitAccepted(RecordingPolicy p) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      if (p.nextUpdate().isOk()) {
        return;
      }
    }
    throw new AssertionError("no accepted update in 100");
  }

  private static void awaitServing(Channel ch, TestServers s, int server) {
    for (int i = 0; i < 2_000 && s.calls(server) == 0; i++) {
      TestServers.call(ch, CallOptions.DEFAULT.withWaitForReady());
    }
    assertThat(s.calls(server)).as("calls reaching server %d", server).isPositive();
  }

  @Test
  void aRejectedListStartsNoSubchannelKeepsTheLastGoodSetAndTheNextGoodOneIsServed()
      throws Exception {
    TestServers s = servers(3);
    RecordingPolicy policy = RecordingPolicy.of("vnswrr");
    String name = name("rejected");
    EndpointRegistry.global().publish(name, at(s, 0, "") + "," + at(s, 1, ""));
    ManagedChannel ch = channel(NettyChannelBuilder.forTarget("ballast://" + name)
        .defaultLoadBalancingPolicy(policy.getPolicyName()));
    awaitServing(ch, s, 0);
    awaitServing(ch, s, 1);
    assertThat(policy.nextUpdate().isOk()).isTrue();
    assertThat(policy.subchannels).hasValue(2);

    EndpointRegistry.global().publish(name,
        at(s, 0, RING_TOO_LARGE_0) + "," + at(s, 2, RING_TOO_LARGE_1));
    Status rejected = policy.nextUpdate();
    assertThat(rejected.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(rejected.getDescription()).contains("virtual nodes");
    assertThat(policy.subchannels).as("subchannels after the rejected list").hasValue(2);
    s.resetCounts();
    for (int i = 0; i < 100; i++) {
      TestServers.call(ch);
    }
    assertThat(s.callCounts()).as("the last good set, weights 1 and 1").containsExactly(50, 50, 0);

    EndpointRegistry.global().publish(name, at(s, 0, "") + "," + at(s, 2, ""));
    awaitAccepted(policy);
    awaitServing(ch, s, 2);
    assertThat(policy.subchannels).hasValue(3);
  }

  @Test
  void aRejectedFirstListFailsCallsNamingTheCauseNotAPanic() throws Exception {
    TestServers s = servers(2);
    RecordingPolicy policy = RecordingPolicy.of("vnswrr");
    ManagedChannel ch = channel(NettyChannelBuilder
        .forTarget(s.target(RING_TOO_LARGE_0, RING_TOO_LARGE_1))
        .defaultLoadBalancingPolicy(policy.getPolicyName()));
    for (int i = 0; i < 3; i++) {
      StatusRuntimeException e = failure(ch);
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription())
          .contains("cannot balance the resolved addresses")
          .contains("virtual nodes");
    }
    assertThat(policy.subchannels).hasValue(0);
    assertThat(s.callCounts()).containsExactly(0, 0);
  }

  @Test
  void anEmptyListFailsCallsWithUnavailableUntilEndpointsComeBack() throws Exception {
    TestServers s = servers(1);
    RecordingPolicy policy = RecordingPolicy.of("least_loaded");
    String name = name("emptied");
    EndpointRegistry.global().publish(name, at(s, 0, ""));
    ManagedChannel ch = channel(NettyChannelBuilder.forTarget("ballast://" + name)
        .defaultLoadBalancingPolicy(policy.getPolicyName()));
    awaitServing(ch, s, 0);
    assertThat(policy.nextUpdate().isOk()).isTrue();

    EndpointRegistry.global().publish(name, List.of());
    assertThat(policy.nextUpdate().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    int before = s.calls(0);
    for (int i = 0; i < 5; i++) {
      StatusRuntimeException e = failure(ch);
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).contains("no addresses");
    }
    assertThat(s.calls(0)).as("calls reaching the withdrawn server").isEqualTo(before);

    EndpointRegistry.global().publish(name, at(s, 0, ""));
    awaitAccepted(policy);
    assertThat(TestServers.call(ch, CallOptions.DEFAULT.withWaitForReady())).isZero();
  }

  @Test
  void namesTheRegistryRejectsFailAtBuildNamingTheCause() {
    assertThatThrownBy(() -> NettyChannelBuilder.forTarget("ballast://orders:8080")
            .usePlaintext().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("orders:8080")
        .hasMessageContaining("unexpected character ':'");
    assertThatThrownBy(() -> NettyChannelBuilder.forTarget("ballast://my%20orders")
            .usePlaintext().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("my orders")
        .hasMessageContaining("unexpected character ' '");
  }

  @Test
  void aSelectorKeyThatIsNoHeaderNameOnceLowerCasedIsRejectedWithTheConfig() throws Exception {
    TestServers s = servers(1);
    // 'İ' lower-cases to 'i' alone, but "İ" lower-cases to "i̇": i and a combining dot
    Map<String, ?> config = serviceConfig("label_subset", "{'selectors': [['\u0130']]}");
    assertThatThrownBy(() -> channel(NettyChannelBuilder.forTarget(s.target("%C4%B0=a"))
            .defaultServiceConfig(config)))
        .hasMessageContaining("selectors: key \u0130 cannot")
        .hasMessageContaining("x-lb-\u0130");
  }

  @Test
  void aSubsetItsChildBalancerRejectsIsRejectedWithTheListNotAtThePick() throws Exception {
    TestServers s = servers(3);
    RecordingPolicy policy = RecordingPolicy.of("label_subset");
    String name = name("subset");
    EndpointRegistry.global().publish(name, at(s, 0, "zone=a") + "," + at(s, 1, "zone=b"));
    ManagedChannel ch = channel(NettyChannelBuilder.forTarget("ballast://" + name)
        .defaultServiceConfig(serviceConfig(policy.getPolicyName(),
            "{'selectors': [['zone']], 'childPolicy': [{'vnswrr': {}}]}")));
    Channel zoneA = withHeader(ch, "x-lb-zone", "a");
    awaitServing(zoneA, s, 0);
    assertThat(policy.nextUpdate().isOk()).isTrue();

    // zone b's subset has a ring too large for its vnswrr child
    EndpointRegistry.global().publish(name, at(s, 0, "zone=a") + ","
        + at(s, 1, "zone=b;" + RING_TOO_LARGE_0) + "," + at(s, 2, "zone=b;" + RING_TOO_LARGE_1));
    Status rejected = policy.nextUpdate();
    assertThat(rejected.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(rejected.getDescription()).contains("virtual nodes");
    assertThat(policy.subchannels).hasValue(2);
    Channel zoneB = withHeader(ch, "x-lb-zone", "b");
    s.resetCounts();
    for (int i = 0; i < 10; i++) {
      TestServers.call(zoneB);
    }
    assertThat(s.callCounts()).as("the last good set").containsExactly(0, 10, 0);
  }

  private static Channel withHeader(Channel ch, String header, String value) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of(header, Metadata.ASCII_STRING_MARSHALLER), value);
    return ClientInterceptors.intercept(ch, MetadataUtils.newAttachHeadersInterceptor(md));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> serviceConfig(String policy, String config) throws Exception {
    return (Map<String, ?>) JsonParser.parse(("{'loadBalancingConfig': [{'" + policy + "': "
        + config + "}]}").replace('\'', '"'));
  }
}

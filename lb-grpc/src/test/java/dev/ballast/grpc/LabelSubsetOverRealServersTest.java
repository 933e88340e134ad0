package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.subset.RequestLabels;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** label_subset in real channels: servers 0, 1 in zone a; 2, 3 in zone b. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LabelSubsetOverRealServersTest {

  private TestServers servers;
  private ManagedChannel channel;

  @BeforeEach
  void startServers() throws Exception {
    servers = TestServers.start(0, 0, 0, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    servers.close();
  }

  private ManagedChannel channel(String lbConfig) throws Exception {
    channel = servers.channel("label_subset", lbConfig, "zone=a", "zone=a;version=v2", "zone=b",
        "zone=b");
    return channel;
  }

  private static Channel withHeader(Channel ch, String name, String value) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value);
    return ClientInterceptors.intercept(ch, MetadataUtils.newAttachHeadersInterceptor(md));
  }

  private static void callTimes(Channel ch, CallOptions options, int n) {
    for (int i = 0; i < n; i++) {
      TestServers.call(ch, options);
    }
  }

  @Test
  void zoneHeaderReachesOnlyThatZone() throws Exception {
    ManagedChannel ch = channel("{'selectors': [['zone']], 'childPolicy': [{'vnswrr': {}}]}");

    callTimes(withHeader(ch, "x-lb-zone", "b"), CallOptions.DEFAULT, 200);

    assertThat(servers.calls(0) + servers.calls(1)).isZero();
    assertThat(servers.calls(2) + servers.calls(3)).isEqualTo(200);
    assertThat(servers.calls(2)).isPositive();
    assertThat(servers.calls(3)).isPositive();
  }

  @Test
  void callOptionLabelsRouteWithoutHeaders() throws Exception {
    ManagedChannel ch = channel("{'selectors': [['zone'], ['zone', 'version']],"
        + " 'childPolicy': [{'least_loaded': {}}]}");
    CallOptions v2 = CallOptions.DEFAULT.withOption(LabelSubsetLoadBalancerProvider.REQUEST_LABELS,
        RequestLabels.of("zone", "a", "version", "v2"));

    callTimes(ch, v2, 50);

    assertThat(servers.callCounts()).containsExactly(0, 50, 0, 0);
  }

  @Test
  void noFallbackFailsUnmatchedCallsNamingTheLabels() throws Exception {
    ManagedChannel ch = channel("{'selectors': [['zone']]}");
    callTimes(withHeader(ch, "x-lb-zone", "a"), CallOptions.DEFAULT, 5); // the channel works

    assertThatThrownBy(() -> TestServers.call(withHeader(ch, "x-lb-zone", "c"),
            CallOptions.DEFAULT))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("UNAVAILABLE")
        .hasMessageContaining("zone=c")
        .hasMessageContaining("NO_FALLBACK");
    assertThat(servers.calls(0) + servers.calls(1)).isEqualTo(5);
    assertThat(servers.calls(2) + servers.calls(3)).isZero();
  }

  @Test
  void anyEndpointFallbackSpreadsUnmatchedCalls() throws Exception {
    ManagedChannel ch = channel("{'selectors': [['zone']], 'fallbackPolicy': 'ANY_ENDPOINT',"
        + " 'childPolicy': [{'vnswrr': {}}]}");
    Channel zoneC = withHeader(ch, "x-lb-zone", "c");
    // Once every server answered, vnswrr over the four is plain round robin.
    for (int i = 0; i < 2_000 && min(servers.callCounts()) == 0; i++) {
      TestServers.call(zoneC);
    }
    servers.resetCounts();

    callTimes(zoneC, CallOptions.DEFAULT, 400);

    assertThat(servers.callCounts()).containsExactly(100, 100, 100, 100);
  }

  @Test
  void defaultSubsetFallbackUsesTheDefaultOnly() throws Exception {
    ManagedChannel ch = channel("{'selectors': [['zone']], 'fallbackPolicy': 'DEFAULT_SUBSET',"
        + " 'defaultSubset': {'zone': 'a'}}");

    callTimes(withHeader(ch, "x-lb-zone", "c"), CallOptions.DEFAULT, 100);
    callTimes(ch, CallOptions.DEFAULT, 100);

    assertThat(servers.calls(0) + servers.calls(1)).isEqualTo(200);
    assertThat(servers.calls(2) + servers.calls(3)).isZero();
  }

  private static int min(int[] counts) {
    int m = Integer.MAX_VALUE;
    for (int c : counts) {
      m = Math.min(m, c);
    }
    return m;
  }
}

package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.testing.LogRecorder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The policies' meters ({@code ballast.grpc.*}) in a {@link SimpleMeterRegistry} added to
 * Micrometer's global registry, over real gRPC channels and servers on 127.0.0.1. The per-endpoint
 * pick count is off unless a test sets {@value #ENDPOINT_PICKS} before its channel's first call
 * (when the policy starts).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsOverRealServersTest {

  static final String ENDPOINT_PICKS = "ballast.grpc.metrics.endpointPicks";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  // the switch as it was before the test, put back after it
  private final String switchBefore = System.getProperty(ENDPOINT_PICKS);

  @BeforeEach
  void addRegistry() {
    Metrics.addRegistry(registry);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    Metrics.removeRegistry(registry);
    registry.close();
    if (switchBefore == null) {
      System.clearProperty(ENDPOINT_PICKS);
    } else {
      System.setProperty(ENDPOINT_PICKS, switchBefore);
    }
  }

  private TestServers servers(long... delays) throws IOException {
    TestServers s = TestServers.start(delays);
    closeables.add(s);
    return s;
  }

  // the policies' meters are tagged with the channel's authority, not its whole target
  private final Map<String, String> authorities = new java.util.HashMap<>();

  private ManagedChannel channel(String target, Map<String, ?> policy) {
    ManagedChannel ch = NettyChannelBuilder.forTarget(target)
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(policy)))
        .usePlaintext().build();
    closeables.add(() -> close(ch));
    authorities.put(target, ch.authority());
    return ch;
  }

  private static void close(ManagedChannel ch) throws InterruptedException {
    ch.shutdownNow();
    ch.awaitTermination(10, TimeUnit.SECONDS);
  }

  private Search find(String name, String target) {
    return registry.find(name).tag("target", authorities.getOrDefault(target, target));
  }

  private double count(String name, String target) {
    return find(name, target).functionCounters().stream()
        .mapToDouble(FunctionCounter::count).sum();
  }

  private double subchannels(String target, String state) {
    return find("ballast.grpc.subchannels", target).tag("state", state).gauge().value();
  }

  @Test
  void picksAreNotCountedPerEndpointByDefault() throws Exception {
    TestServers s = servers(0, 0);
    String target = s.target();
    ManagedChannel ch = channel(target, Map.of("vnswrr", Map.of()));
    for (int i = 0; i < 20; i++) {
      TestServers.call(ch);
    }
    assertThat(s.calls(0) + s.calls(1)).isEqualTo(20);
    assertThat(find("ballast.grpc.picks", target).meters()).isEmpty();
    // the other meters are there
    assertThat(find("ballast.grpc.pending", target).gauges()).hasSize(2);
    assertThat(subchannels(target, "ready")).isEqualTo(2);
    assertThat(find("ballast.grpc.picks.queued", target).functionCounters()).hasSize(1);
    assertThat(find("ballast.grpc.picks.failed", target).functionCounters()).hasSize(1);
  }

  @Test
  void falseLeavesThePerEndpointCountOff() throws Exception {
    System.setProperty(ENDPOINT_PICKS, " FALSE ");
    TestServers s = servers(0);
    String target = s.target();
    TestServers.call(channel(target, Map.of("least_loaded", Map.of())));
    assertThat(find("ballast.grpc.picks", target).meters()).isEmpty();
    assertThat(find("ballast.grpc.pending", target).gauges()).hasSize(1);
  }

  @Test
  void aBadSwitchValueLeavesTheCountOffWithAWarningNamingIt() throws Exception {
    System.setProperty(ENDPOINT_PICKS, "yes");
    try (LogRecorder log = LogRecorder.on("dev.ballast.grpc.internal.PolicyMetrics")) {
      TestServers s = servers(0);
      String target = s.target();
      ManagedChannel ch = channel(target, Map.of("vnswrr", Map.of()));
      TestServers.call(ch); // calls go on
      assertThat(s.calls(0)).isEqualTo(1);
      assertThat(find("ballast.grpc.picks", target).meters()).isEmpty();
      assertThat(find("ballast.grpc.pending", target).gauges()).hasSize(1);
      assertThat(log.lines()).containsExactly("WARNING " + ENDPOINT_PICKS
          + ": 'yes' (expected: true or false); the per-endpoint pick count stays off");
    }
  }

  @Test
  void p2cPeakEwmaReportsPicksPendingRttAndSubchannelStates() throws Exception {
    System.setProperty(ENDPOINT_PICKS, "true");
    TestServers s = servers(0, 0, 5);
    String target = s.target();
    ManagedChannel ch = channel(target, Map.of("p2c_peak_ewma", Map.of()));
    for (int i = 0; i < 300; i++) {
      TestServers.call(ch);
    }

    // Each endpoint's picks are the calls its server answered; nothing is left pending.
    for (int i = 0; i < 3; i++) {
      String endpoint = "127.0.0.1:" + s.port(i);
      assertThat(find("ballast.grpc.picks", target).tag("endpoint", endpoint)
          .tag("policy", "p2c_peak_ewma").functionCounter().count())
          .as("picks of %s", endpoint).isEqualTo(s.calls(i));
      assertThat(find("ballast.grpc.pending", target).tag("endpoint", endpoint).gauge().value())
          .isZero();
      double rttSeconds = find("ballast.grpc.rtt", target).tag("endpoint", endpoint)
          .timeGauge().value(TimeUnit.SECONDS);
      assertThat(rttSeconds).as("rtt of %s", endpoint).isGreaterThan(0).isLessThan(1);
    }
    assertThat(count("ballast.grpc.picks", target)).isEqualTo(300);
    assertThat(subchannels(target, "ready")).isEqualTo(3);
    assertThat(subchannels(target, "connecting") + subchannels(target, "idle")
        + subchannels(target, "transient_failure")).isZero();
    // None failed. (Whether the first call waited for a subchannel depends on how fast it
    // connects: picksThatWaitAreCountedAsQueued checks waiting picks.)
    assertThat(count("ballast.grpc.picks.failed", target)).isZero();

    // A server that stops: its subchannel ends in TRANSIENT_FAILURE, calls keep going elsewhere.
    s.server(2).shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    for (int i = 0; i < 5_000 && subchannels(target, "transient_failure") < 1; i++) {
      try {
        assertThat(TestServers.call(ch)).isIn(0, 1);
      } catch (StatusRuntimeException e) {
        // a call picked for the stopping server before the channel saw its connection close
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      }
    }
    assertThat(subchannels(target, "transient_failure")).isEqualTo(1);
    assertThat(subchannels(target, "ready")).isEqualTo(2);
    for (int i = 0; i < 20; i++) {
      assertThat(TestServers.call(ch)).isIn(0, 1);
    }
  }

  @Test
  void picksThatWaitAreCountedAsQueued() throws Exception {
    // A listener that accepts connections and never speaks HTTP/2 keeps its subchannel
    // CONNECTING, so every pick of a call waits until the call's deadline.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String target = "ballast:///127.0.0.1:" + silent.getLocalPort();
      ManagedChannel ch = channel(target, Map.of("p2c_peak_ewma", Map.of()));
      assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(ch, TestServers.ECHO,
          CallOptions.DEFAULT.withDeadlineAfter(500, TimeUnit.MILLISECONDS), "ping"))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(subchannels(target, "connecting")).isEqualTo(1);
      assertThat(count("ballast.grpc.picks.queued", target)).isGreaterThanOrEqualTo(1);
      assertThat(count("ballast.grpc.picks.failed", target)).isZero();
      assertThat(count("ballast.grpc.picks", target)).isZero();
    }
  }

  @Test
  void picksThatFailAreCountedAndUntimedPoliciesHaveNoRtt() throws Exception {
    TestServers s = servers(0);
    int port = s.port(0);
    s.server(0).shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    String target = "ballast:///127.0.0.1:" + port;
    ManagedChannel ch = channel(target, Map.of("vnswrr", Map.of()));
    for (int i = 0; i < 1_000 && count("ballast.grpc.picks.failed", target) < 3; i++) {
      assertThatThrownBy(() -> TestServers.call(ch))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }
    assertThat(count("ballast.grpc.picks.failed", target)).isGreaterThanOrEqualTo(3);
    assertThat(subchannels(target, "transient_failure")).isEqualTo(1);
    assertThat(count("ballast.grpc.picks", target)).isZero();
    assertThat(find("ballast.grpc.rtt", target).meters()).isEmpty();
    assertThat(find("ballast.grpc.pending", target).gauges()).hasSize(1);
  }

  @Test
  void labelSubsetCountsPicksPerEndpointAndUnmatchedLabelsAsFailed() throws Exception {
    System.setProperty(ENDPOINT_PICKS, "true");
    TestServers s = servers(0, 0);
    String target = s.target("zone=a", "zone=b");
    ManagedChannel ch = channel(target, Map.of("label_subset", Map.of(
        "selectors", List.of(List.of("zone")),
        "childPolicy", List.of(Map.of("p2c_peak_ewma", Map.of())))));
    CallOptions zoneB = CallOptions.DEFAULT.withOption(
        LabelSubsetLoadBalancerProvider.REQUEST_LABELS, RequestLabels.of("zone", "b"));
    for (int i = 0; i < 50; i++) {
      assertThat(TestServers.call(ch, zoneB)).isEqualTo(1);
    }
    CallOptions zoneC = CallOptions.DEFAULT.withOption(
        LabelSubsetLoadBalancerProvider.REQUEST_LABELS, RequestLabels.of("zone", "c"));
    assertThatThrownBy(() -> TestServers.call(ch, zoneC))
        .isInstanceOf(StatusRuntimeException.class);

    Search picks = find("ballast.grpc.picks", target).tag("policy", "label_subset");
    assertThat(picks.tag("endpoint", "127.0.0.1:" + s.port(1)).functionCounter().count())
        .isEqualTo(50);
    assertThat(find("ballast.grpc.picks", target).tag("endpoint", "127.0.0.1:" + s.port(0))
        .functionCounter().count()).isZero();
    assertThat(count("ballast.grpc.picks.failed", target)).isEqualTo(1);
    // p2c_peak_ewma inside the subsets keeps an RTT per endpoint.
    assertThat(find("ballast.grpc.rtt", target).timeGauges()).hasSize(2);
  }

  @Test
  void metersLeaveTheRegistryWithTheChannel() throws Exception {
    System.setProperty(ENDPOINT_PICKS, "true");
    TestServers s = servers(0, 0);
    String target = s.target();
    ManagedChannel ch = channel(target, Map.of("least_loaded", Map.of()));
    TestServers.call(ch);
    String tag = ch.authority();
    assertThat(tag).isEqualTo("127.0.0.1:" + s.port(0)); // the first endpoint, not the list
    List<Meter> meters = registry.getMeters().stream()
        .filter(m -> tag.equals(m.getId().getTag("target"))).toList();
    // picks (switched on), pending per endpoint; queued, failed; four subchannel states.
    assertThat(meters).hasSize(2 * 2 + 2 + 4);
    assertThat(meters).noneMatch(m -> m instanceof TimeGauge);
    assertThat(meters).filteredOn(m -> m instanceof Gauge).hasSize(2 + 4);
    close(ch);
    assertThat(registry.getMeters())
        .noneMatch(m -> tag.equals(m.getId().getTag("target")));
  }
}

package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.testing.LogRecorder;
import io.grpc.ManagedChannel;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The locality policy in real channels: servers 0-2 in zone a, 3-5 in b, 6-8 in c. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalityOverRealServersTest {

  private static final String ZONE_AWARE = "{'localZone': 'a',"
      + " 'callerZones': {'a': 1, 'b': 1, 'c': 1}, 'childPolicy': [{'p2c_peak_ewma': {}}]}";

  private TestServers servers;
  private ManagedChannel channel;

  @BeforeEach
  void startServers() throws Exception {
    servers = TestServers.start(0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    servers.close();
  }

  private ManagedChannel channel(String lbConfig, String zoneASuffix) throws Exception {
    String[] suffixes = new String[9];
    for (int i = 0; i < 9; i++) {
      suffixes[i] = "zone=" + (char) ('a' + i / 3) + (i < 3 ? zoneASuffix : "");
    }
    channel = servers.channel("locality", lbConfig, suffixes);
    return channel;
  }

  private int[] perZone() {
    int[] r = new int[3];
    for (int i = 0; i < 9; i++) {
      r[i / 3] += servers.calls(i);
    }
    return r;
  }

  @Test
  void aCallerInZoneAStaysInZoneA() throws Exception {
    ManagedChannel ch = channel(ZONE_AWARE, "");
    for (int i = 0; i < 150; i++) {
      TestServers.call(ch);
    }
    assertThat(perZone()).containsExactly(150, 0, 0);
  }

  @Test
  void aRoutedChannelLogsNothingAndAMistypedLocalZoneIsLoggedOnce() throws Exception {
    try (LogRecorder log = LogRecorder.on(StateChangeLog.LOGGER)) {
      ManagedChannel ch = channel(ZONE_AWARE, "");
      for (int i = 0; i < 30; i++) {
        TestServers.call(ch);
      }
      assertThat(log.lines()).isEmpty(); // the routing works: nothing to say
      stop();
      startServers();
      ManagedChannel typo = channel(ZONE_AWARE.replace("'localZone': 'a'", "'localZone': 'A'"),
          "");
      for (int i = 0; i < 300; i++) {
        TestServers.call(typo);
      }
      for (int n : perZone()) { // by weight: a third each, up to the child's choices
        assertThat(n).isBetween(50, 150);
      }
      assertThat(log.lines()).containsExactly("WARNING channel " + typo.authority() + ": zone A:"
          + " zone-aware routing off (callerZones {a=1.0, b=1.0, c=1.0} give the local zone no"
          + " share (zones are compared exactly: did you mean a?)), its calls go to every zone by"
          + " weight");
    }
  }

  @Test
  void whileZoneAIsUnhealthyItsCallsSpillByResidualCapacity() throws Exception {
    ManagedChannel ch = channel(ZONE_AWARE, ";health=unhealthy");
    for (int i = 0; i < 300; i++) {
      TestServers.call(ch);
    }
    int[] zones = perZone();
    assertThat(zones[0]).isZero();
    assertThat(zones[1] + zones[2]).isEqualTo(300);
    assertThat(zones[1]).isBetween(100, 200); // half each, up to sampling noise
  }

  @Test
  void withoutACallerZoneLocalitiesShareByWeight() throws Exception {
    ManagedChannel ch = channel("{'childPolicy': [{'round_robin': {}}]}", "");
    for (int i = 0; i < 900; i++) {
      TestServers.call(ch);
    }
    for (int n : perZone()) {
      assertThat(n).isBetween(200, 400);
    }
  }

  @Test
  void theDefaultChildIsWeightedRoundRobin() {
    Object config = new LocalityLoadBalancerProvider().parseLoadBalancingPolicyConfig(Map.of())
        .getConfig();
    assertThat(((dev.ballast.grpc.internal.LocalityPolicyConfig) config).child().name())
        .isEqualTo(dev.ballast.core.Algorithm.VNSWRR.id());
  }

  @Test
  void aBadConfigIsAnErrorNamingTheField() {
    var provider = new LocalityLoadBalancerProvider();
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("callerZones", Map.of("a", -1.0)))
        .getError().getDescription()).startsWith("locality config: callerZones: ")
        .contains("expected: a zone name and a finite share >= 0");
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("childPolicy",
        java.util.List.of(Map.of("pick_frist", Map.of())))).getError().getDescription())
        .contains("childPolicy: none of [pick_frist] is known (did you mean pick_first?");
  }
}

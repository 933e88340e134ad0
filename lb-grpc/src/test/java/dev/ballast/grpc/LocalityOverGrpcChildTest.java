package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The locality policy over gRPC's own child policies in real channels: servers 0-1 in zone a,
 * 2-3 in b, 4-5 in c, the caller in a; lb-core's tables choose the zone, gRPC's {@code
 * round_robin} or {@code pick_first} the server in it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalityOverGrpcChildTest {

  private static final String LOCAL_A = "'localZone': 'a', 'callerZones': {'a': 1, 'b': 1,"
      + " 'c': 1}, 'childPolicy': ";

  private TestServers servers;
  private ManagedChannel channel;

  @BeforeEach
  void startServers() throws Exception {
    servers = TestServers.start(0, 0, 0, 0, 0, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    servers.close();
  }

  private ManagedChannel channel(String child) throws Exception {
    channel = servers.channel("locality", "{" + LOCAL_A + child + "}",
        "zone=a", "zone=a", "zone=b", "zone=b", "zone=c", "zone=c");
    return channel;
  }

  /** Calls until {@code done} holds of the server that answered, at most 2,000 calls. */
  private void callUntil(IntPredicate done, String what) {
    for (int i = 0; i < 2_000; i++) {
      try {
        if (done.test(TestServers.call(channel))) {
          return;
        }
      } catch (StatusRuntimeException e) {
        // a call on a connection that a stopped server closed fails; the next one is re-picked
      }
    }
    throw new AssertionError("not reached: " + what);
  }

  private int[] calls(int n) {
    servers.resetCounts();
    for (int i = 0; i < n; i++) {
      TestServers.call(channel);
    }
    return servers.callCounts();
  }

  @Test
  void roundRobinKeepsTheCallsInTheLocalZoneAndSplitsThemEvenly() throws Exception {
    channel("[{'round_robin': {}}]");
    callUntil(i -> servers.calls(0) > 0 && servers.calls(1) > 0, "both of zone a READY");
    assertThat(calls(200)).containsExactly(100, 100, 0, 0, 0, 0);
  }

  @Test
  void whenTheLocalZonesServersGoDownTheCallsSpillToTheOtherZones() throws Exception {
    channel("[{'round_robin': {}}]");
    callUntil(i -> servers.calls(0) > 0 && servers.calls(1) > 0, "both of zone a READY");
    servers.server(0).shutdownNow();
    servers.server(1).shutdownNow();
    int[] streak = {0};
    callUntil(i -> (streak[0] = i >= 2 ? streak[0] + 1 : 0) == 20, "20 calls in a row off a");
    int[] spilled = calls(400);
    assertThat(spilled[0] + spilled[1]).as("none to zone a").isZero();
    // zones b and c by weight (a random draw per call), round robin inside each
    assertThat(spilled[2] + spilled[3]).as("zone b").isBetween(140, 260);
    assertThat(Math.abs(spilled[2] - spilled[3])).as("b's servers alternate").isLessThanOrEqualTo(1);
    assertThat(Math.abs(spilled[4] - spilled[5])).as("c's servers alternate").isLessThanOrEqualTo(1);
  }

  @Test
  void anEndpointLabelledUnhealthyTakesNoCallFromItsZonesChild() throws Exception {
    channel = servers.channel("locality", "{" + LOCAL_A + "[{'round_robin': {}}]}",
        "zone=a;health=unhealthy", "zone=a", "zone=b", "zone=b", "zone=c", "zone=c");
    callUntil(i -> i == 1, "server 1 READY");
    int[] n = calls(100);
    assertThat(n[0]).as("the unhealthy one").isZero();
    assertThat(n[1]).as("a's healthy one keeps what a can take").isPositive();
    assertThat(n[1] + n[2] + n[3] + n[4] + n[5]).isEqualTo(100);
  }

  @Test
  void pickFirstSendsTheLocalZonesCallsToItsFirstServer() throws Exception {
    channel("[{'pick_first': {}}]");
    callUntil(i -> i == 0, "zone a's first server READY");
    assertThat(calls(100)).containsExactly(100, 0, 0, 0, 0, 0);
  }

  @Test
  void theFirstKnownEntryWinsAsInGrpc() throws Exception {
    channel("[{'no_such_policy': {}}, {'round_robin': {}}, {'vnswrr': {}}]");
    callUntil(i -> servers.calls(0) > 0 && servers.calls(1) > 0, "both of zone a READY");
    assertThat(calls(200)).containsExactly(100, 100, 0, 0, 0, 0);
  }

  @Test
  void anUnknownOrKeyedChildIsRefusedNamingIt() {
    var provider = new LocalityLoadBalancerProvider();
    assertThat(error(provider, Map.of("round_robbin", Map.of())))
        .startsWith("locality config: childPolicy: none of [round_robbin] is known (did you mean"
            + " round_robin? expected: one of [weighted_random, swrr, vnswrr,");
    assertThat(error(provider, Map.of("ring_hash_experimental", Map.of())))
        .contains("childPolicy: ring_hash_experimental picks by the call's key");
    assertThat(error(provider, Map.of("ballast_ring_hash", Map.of())))
        .contains("childPolicy: ballast_ring_hash picks by the call's key");
    assertThat(error(provider, Map.of("locality", Map.of())))
        .contains("childPolicy: locality inside locality");
    // a Ballast policy that cannot be a child says why, and suggests no other name
    assertThat(error(provider, Map.of("p2c_utilization", Map.of())))
        .contains("none of [p2c_utilization] is known (p2c_utilization reads load reports,"
            + " which no composite's child gets; expected: one of");
    assertThat(error(provider, Map.of("pick_first", Map.of("shuffleAddressList", "yes"))))
        .startsWith("locality config: childPolicy: pick_first: ");
    // label_subset balances a subset's zones with lb-core's algorithms only (round_robin there
    // is lb-core's: LabelSubsetConfigTest)
    assertThat(new LabelSubsetLoadBalancerProvider().parseLoadBalancingPolicyConfig(Map.of(
        "selectors", List.of(List.of("version")), "childPolicy", List.of(Map.of("locality",
            Map.of("childPolicy", List.of(Map.of("pick_first", Map.of()))))))).getError()
        .getDescription()).contains("childPolicy: locality: childPolicy: none of [pick_first]"
            + " is supported (expected: one of [round_robin, weighted_random,");
  }

  private static String error(LocalityLoadBalancerProvider provider, Map<String, ?> child) {
    return provider.parseLoadBalancingPolicyConfig(Map.of("childPolicy", List.of(child)))
        .getError().getDescription();
  }
}

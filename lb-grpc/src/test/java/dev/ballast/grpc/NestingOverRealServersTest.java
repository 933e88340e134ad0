package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.subset.RequestLabels;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ballast's gRPC policies nest in real channels: label subsets over zones over P2C peak EWMA,
 * and zones over ring hash with the call's key passed down. Servers 0-3 are v1, 4-7 v2; in each
 * version two in zone a, two in zone b; the caller is in zone a.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NestingOverRealServersTest {

  private static final String LOCAL_A = "'localZone': 'a', 'callerZones': {'a': 1, 'b': 1},"
      + " 'minClusterSize': 1";

  private TestServers servers;
  private ManagedChannel channel;

  @BeforeEach
  void startServers() throws Exception {
    servers = TestServers.start(0, 0, 0, 0, 0, 0, 0, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    servers.close();
  }

  private ManagedChannel channel(String policy, String config) throws Exception {
    String[] suffixes = new String[8];
    for (int i = 0; i < 8; i++) {
      suffixes[i] = "version=" + (i < 4 ? "v1" : "v2") + ";zone=" + ((i / 2) % 2 == 0 ? "a" : "b");
    }
    channel = servers.channel(policy, config, suffixes);
    return channel;
  }

  @Test
  void labelSubsetsOverZonesOverP2c() throws Exception {
    ManagedChannel ch = channel("label_subset", "{'selectors': [['version']], 'childPolicy':"
        + " [{'locality': {" + LOCAL_A + ", 'childPolicy': [{'p2c_peak_ewma': {}}]}}]}");
    CallOptions v2 = CallOptions.DEFAULT.withOption(
        LabelSubsetLoadBalancerProvider.REQUEST_LABELS, RequestLabels.of(Map.of("version", "v2")));
    Set<Integer> answered = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      answered.add(TestServers.call(ch, v2.withWaitForReady()));
    }
    // v2 in zone a: servers 4 and 5 only
    assertThat(answered).isNotEmpty().isSubsetOf(4, 5);
  }

  @Test
  void zonesOverRingHashKeepAKeyOnOneServerOfItsZone() throws Exception {
    ManagedChannel ch = channel("locality", "{" + LOCAL_A
        + ", 'childPolicy': [{'ring_hash': {}}]}");
    // all servers READY first: a key's server is the same once every subchannel is in the ring
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 400 && seen.size() < 4; i++) {
      seen.add(TestServers.call(ch, CallOptions.DEFAULT.withWaitForReady()));
    }
    assertThat(seen).containsExactlyInAnyOrder(0, 1, 4, 5);
    Map<String, Integer> serverOfKey = new TreeMap<>();
    for (int k = 0; k < 20; k++) {
      String key = "user-" + k;
      for (int i = 0; i < 5; i++) {
        int server = TestServers.call(ch,
            CallOptions.DEFAULT.withOption(HashLoadBalancerProvider.REQUEST_KEY, key));
        Integer first = serverOfKey.putIfAbsent(key, server);
        assertThat(server).as(key).isEqualTo(first == null ? server : first);
      }
    }
    assertThat(serverOfKey.values()).allMatch(s -> s == 0 || s == 1 || s == 4 || s == 5);
    assertThat(new HashSet<>(serverOfKey.values()).size()).isGreaterThan(1);
  }
}

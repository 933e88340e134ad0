package dev.ballast.core.composite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.locality.LocalityConfig;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Composites nest: label subsets over zones over an algorithm, and zones over a key-picking
 * algorithm with the call's key passed down. Seeded picks, no servers.
 */
class NestingTest {

  /** Zone a is the callers' own and can take them all: every pick stays in it. */
  private static final LocalityConfig LOCAL_A = LocalityConfig.builder().localZone("a")
      .callerZones(Map.of("a", 1, "b", 1)).minClusterSize(1).build();

  /** v1 and v2 in zones a and b, two endpoints each. */
  private static List<Endpoint> endpoints() {
    List<Endpoint> out = new ArrayList<>();
    int i = 1;
    for (String version : List.of("v1", "v2")) {
      for (String zone : List.of("a", "b")) {
        for (int k = 0; k < 2; k++) {
          out.add(Endpoint.parse("10.0.0." + i++ + ":80;version=" + version + ";zone=" + zone));
        }
      }
    }
    return out;
  }

  private static BalancerConfig seeded(long seed) {
    return BalancerConfig.builder().random(new SplittableRandom(seed)).build();
  }

  private static SubsetSelector<String> subsetsOverZones(Algorithm child) {
    SubsetSelector<String> s = SubsetSelector.<String>builder().selector("version")
        .balancerFactory(() -> LocalityBalancer.<String>builder().algorithm(child)
            .config(seeded(3)).locality(LOCAL_A).build())
        .build();
    s.update(endpoints(), Endpoint::address);
    return s;
  }

  private static Map<String, Integer> picks(SubsetSelector<String> s, String version, int n) {
    RequestLabels labels = RequestLabels.of(Map.of("version", version));
    Map<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      Node<String> node = s.pick(labels);
      node.complete(1_000_000, true);
      counts.merge(node.value(), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void labelSubsetsOverZonesOverP2cKeepACallInItsSubsetAndZone() {
    SubsetSelector<String> s = subsetsOverZones(Algorithm.P2C_PEAK_EWMA);
    assertThat(s.name()).isEqualTo("label_subset(locality(p2c_peak_ewma))");
    // v2 in zone a: 10.0.0.5 and .6; never v1, never zone b (which of the two, P2C decides)
    assertThat(picks(s, "v2", 1_000).keySet()).isNotEmpty()
        .isSubsetOf("10.0.0.5:80", "10.0.0.6:80");
    assertThat(picks(s, "v1", 1_000).keySet()).isNotEmpty()
        .isSubsetOf("10.0.0.1:80", "10.0.0.2:80");
  }

  @Test
  void aVerdictOnASharedNodeReachesEverySubsetHoldingIt() {
    SubsetSelector<String> s = SubsetSelector.<String>builder().selector("version")
        .selector("zone")
        .balancerFactory(() -> LocalityBalancer.<String>builder().algorithm(Algorithm.VNSWRR)
            .config(seeded(5)).locality(LOCAL_A).build())
        .build();
    s.update(endpoints(), Endpoint::address);
    // weighted round robin in zone a of v2: exactly half each
    assertThat(picks(s, "v2", 100)).isEqualTo(Map.of("10.0.0.5:80", 50, "10.0.0.6:80", 50));
    // one verdict on 10.0.0.5, a node of the v2 subset and of the zone=a subset, made by the
    // selector's first child: every subset's child hears it
    Node<String> five = s.nodes().stream().filter(n -> n.value().equals("10.0.0.5:80"))
        .findFirst().orElseThrow();
    five.setHealth(Health.UNHEALTHY);
    // zone a of v2 is down to half its endpoints: it keeps what it can take (.6) and spills the
    // rest to zone b (.7, .8), as Envoy routes; .5 gets nothing
    assertThat(picks(s, "v2", 100)).containsOnlyKeys("10.0.0.6:80", "10.0.0.7:80",
        "10.0.0.8:80");
    Map<String, Integer> zoneA = new TreeMap<>();
    RequestLabels a = RequestLabels.of(Map.of("zone", "a"));
    for (int i = 0; i < 100; i++) {
      Node<String> n = s.pick(a);
      n.complete(1, true);
      zoneA.merge(n.value(), 1, Integer::sum);
    }
    assertThat(zoneA).doesNotContainKey("10.0.0.5:80").containsKey("10.0.0.6:80");
  }

  @Test
  void aNodeMovedToAnotherZoneMovesItsSubsetsPicks() {
    SubsetSelector<String> s = subsetsOverZones(Algorithm.VNSWRR);
    assertThat(picks(s, "v1", 10).keySet()).containsOnly("10.0.0.1:80", "10.0.0.2:80");
    // v1's zones swapped: .3 and .4 are now in zone a; only labels change, not the subsets
    List<Endpoint> swapped = new ArrayList<>();
    for (Endpoint e : endpoints()) {
      boolean v1 = e.labels().get("version").equals("v1");
      String zone = !v1 ? e.zone() : e.zone().equals("a") ? "b" : "a";
      swapped.add(Endpoint.parse(e.address() + ";version=" + e.labels().get("version")
          + ";zone=" + zone));
    }
    s.update(swapped, Endpoint::address);
    assertThat(picks(s, "v1", 10).keySet()).containsOnly("10.0.0.3:80", "10.0.0.4:80");
  }

  @Test
  void aRefusedSetOfNodesChangesNothing() {
    LocalityBalancer<String> b = LocalityBalancer.<String>builder().algorithm(Algorithm.VNSWRR)
        .config(seeded(1)).locality(LOCAL_A).build();
    b.update(endpoints(), Endpoint::address);
    List<Node<String>> before = b.nodes();
    Node<String> foreign = ChildBalancer.<String>create(Algorithm.P2C_PEAK_EWMA, seeded(1))
        .newNode(Endpoint.parse("10.0.0.99:80;zone=a"), "x");
    List<Node<String>> bad = new ArrayList<>(before);
    bad.add(0, foreign);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.setNodes(bad))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(b.nodes()).isEqualTo(before);
    assertThat(b.update(endpoints(), Endpoint::address)).isEmpty(); // nothing made or dropped
    assertThat(b.nodes()).isEqualTo(before);
  }

  @Test
  void zonesOverRingHashKeepAKeyOnOneNodeOfTheLocalZone() {
    LocalityBalancer<String> b = LocalityBalancer.<String>builder().algorithm(Algorithm.RING_HASH)
        .config(seeded(9)).locality(LOCAL_A).build();
    b.update(endpoints(), Endpoint::address);
    for (String key : List.of("user-1", "user-2", "user-3", "user-42")) {
      Node<String> first = b.pick(key);
      first.complete(1, true);
      assertThat(first.endpoint().zone()).isEqualTo("a");
      for (int i = 0; i < 50; i++) {
        Node<String> again = b.pick(key);
        again.complete(1, true);
        assertThat(again).as(key).isSameAs(first);
      }
    }
  }

  @Test
  void subsetsOverZonesOverRingHashPassTheKeyDown() {
    SubsetSelector<String> s = subsetsOverZones(Algorithm.RING_HASH);
    RequestLabels v1 = RequestLabels.of(Map.of("version", "v1"));
    Map<String, String> byKey = new TreeMap<>();
    for (int i = 0; i < 200; i++) {
      String key = "user-" + (i % 20);
      Node<String> n = s.pick(v1, key);
      n.complete(1, true);
      assertThat(n.endpoint().labels()).containsEntry("version", "v1").containsEntry("zone", "a");
      String before = byKey.putIfAbsent(key, n.value());
      assertThat(before == null ? n.value() : before).as(key).isEqualTo(n.value());
    }
    // the 20 keys spread over both nodes of v1 in zone a
    assertThat(new java.util.HashSet<>(byKey.values())).hasSize(2);
  }
}

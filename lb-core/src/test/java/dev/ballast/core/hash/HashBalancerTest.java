package dev.ballast.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.engine.EngineTesting;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What every key-hashing balancer does, and each one's own rules. */
class HashBalancerTest {

  private static HashBalancer<Integer> balancer(String algorithm, List<Endpoint> es) {
    HashBalancer<Integer> b = (HashBalancer<Integer>) Algorithm.fromName(algorithm)
        .<Integer>create(Fixtures.seeded(1));
    b.update(es, es::indexOf);
    return b;
  }

  private static int pick(HashBalancer<Integer> b, String key) {
    Node<Integer> n = b.pick(key);
    n.cancel();
    return n.value();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring_hash", "ketama", "maglev"})
  void onlyTheKeysOfAClosedNodeMoveAndTheyComeBack(String algorithm) {
    HashBalancer<Integer> b = balancer(algorithm, Fixtures.endpoints(1, 2, 3, 1, 2, 3, 1, 2));
    int[] before = new int[5000];
    for (int k = 0; k < before.length; k++) {
      before[k] = pick(b, "user-" + k);
    }
    b.nodes().get(5).setAvailability(Availability.CLOSED);
    int moved = 0;
    for (int k = 0; k < before.length; k++) {
      int now = pick(b, "user-" + k);
      assertThat(now).isNotEqualTo(5);
      if (before[k] != 5) {
        assertThat(now).as("key %d of an open node", k).isEqualTo(before[k]);
      } else {
        moved++;
      }
    }
    b.nodes().get(5).setAvailability(Availability.OPEN);
    for (int k = 0; k < before.length; k++) {
      assertThat(pick(b, "user-" + k)).isEqualTo(before[k]);
    }
    assertThat(moved).as("keys node 5 had").isPositive();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring_hash", "ketama", "maglev"})
  void anUncountedPickTakesTheSameNodeAndCountsNothing(String algorithm) {
    HashBalancer<Integer> b = balancer(algorithm, Fixtures.endpoints(1, 2, 3, 1, 2));
    for (int k = 0; k < 500; k++) {
      long h = b.hash("user-" + k);
      Node<Integer> uncounted = b.pickUncounted(h);
      assertThat(b.nodes()).extracting(Node::pending).containsOnly(0);
      Node<Integer> counted = b.pick(h);
      assertThat(uncounted).isSameAs(counted);
      assertThat(counted.pending()).isEqualTo(1);
      counted.cancel();
    }
    assertThatThrownBy(() -> balancer(algorithm, List.of()).pickUncounted(1L))
        .isInstanceOf(NoAvailableEndpointException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring_hash", "ketama", "maglev"})
  void withBoundedLoadsAnUncountedPickThenStartIsAPick(String algorithm) {
    AbstractHashBalancer<Integer> b = (AbstractHashBalancer<Integer>) Algorithm
        .fromName(algorithm).<Integer>create(Fixtures.seeded(1),
            HashConfig.builder().loadBound(1.25).build());
    List<Endpoint> es = Fixtures.endpoints(1, 1, 1, 1, 1);
    b.update(es, es::indexOf);
    List<Node<Integer>> started = new ArrayList<>();
    for (int k = 0; k < 200; k++) {
      // a hot key: bounded loads must spill it over the nodes as requests start
      long h = b.hash(k % 4 == 0 ? "user-" + k : "hot");
      long inFlight = b.inFlight().sum();
      Node<Integer> uncounted = b.pickUncounted(h);
      assertThat(b.inFlight().sum()).isEqualTo(inFlight);
      Node<Integer> counted = b.pick(h);
      assertThat(uncounted).isSameAs(counted);
      counted.cancel();
      uncounted.start();
      started.add(uncounted);
      assertThat(b.inFlight().sum()).isEqualTo(inFlight + 1);
    }
    assertThat(b.nodes()).extracting(Node::pending).allMatch(p -> p <= Math.ceil(1.25 * 200 / 5));
    started.forEach(n -> n.complete(1_000, true));
    assertThat(b.inFlight().sum()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring_hash", "ketama", "maglev"})
  void aBusyNodeKeepsItsKeysButKeylessPicksPassItOver(String algorithm) {
    HashBalancer<Integer> b = balancer(algorithm, Fixtures.endpoints(1, 1, 1, 1));
    int[] before = new int[2000];
    for (int k = 0; k < before.length; k++) {
      before[k] = pick(b, "user-" + k);
    }
    b.nodes().get(2).setAvailability(Availability.BUSY);
    for (int k = 0; k < before.length; k++) {
      assertThat(pick(b, "user-" + k)).isEqualTo(before[k]);
    }
    for (int i = 0; i < 2000; i++) {
      assertThat(Fixtures.pickOnce(b)).isNotEqualTo(2);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring_hash", "ketama", "maglev"})
  void theSameKeyReachesTheSameNodeOnAnotherClientAndAfterAnUpdate(String algorithm) {
    List<Endpoint> es = Fixtures.endpoints(4, 1, 1, 2);
    HashBalancer<Integer> a = balancer(algorithm, es);
    HashBalancer<Integer> b = balancer(algorithm, es);
    List<Endpoint> more = new ArrayList<>(es);
    more.add(Endpoint.parse("10.9.9.9:8080"));
    b.update(more, more::indexOf);
    b.update(es, e -> -1);
    for (int k = 0; k < 2000; k++) {
      assertThat(pick(b, "k" + k)).isEqualTo(pick(a, "k" + k));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring_hash", "ketama", "maglev"})
  void emptySetThrowsOnPickByHash(String algorithm) {
    HashBalancer<Integer> b = balancer(algorithm, List.of());
    assertThatThrownBy(() -> b.pick(42L))
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessage(algorithm + ": no endpoints");
  }

  @Test
  void ringHashTakesTheLastEntryAboveTheRingAsGrpcJavaDoes() {
    HashBalancer<Integer> b = balancer("ring_hash", Fixtures.endpoints(1, 1, 1, 1));
    HashSnapshot<?> s = (HashSnapshot<?>) EngineTesting.current(b);

    assertThat(s.position(Long.MAX_VALUE)).isEqualTo(s.positions() - 1);
    assertThat(s.position(Long.MIN_VALUE)).isZero();
  }

  @Test
  void ringHashEntriesFollowGrpcsScale() {
    // weights 1 and 3: min share 1/4, scale = ceil(1024 / 4) * 4 = 1024 entries
    HashSnapshot<?> s = (HashSnapshot<?>) EngineTesting.current(balancer("ring_hash",
        Fixtures.endpoints(1, 3)));
    int[] counts = new int[2];
    for (int p = 0; p < s.positions(); p++) {
      counts[s.owner(p)]++;
    }
    assertThat(counts).containsExactly(256, 768);
  }

  @Test
  void ketamaWrapsAboveTheLastPointToTheFirst() {
    HashSnapshot<?> s = (HashSnapshot<?>) EngineTesting.current(balancer("ketama",
        Fixtures.endpoints(1, 2)));

    assertThat(s.position(0xFFFF_FFFFL)).isZero();
    assertThat(s.positions()).as("160 points per server, by weight share, times N").isEqualTo(
        (int) (Math.floor(1 / 3f * 40 * 2) * 4 + Math.floor(2 / 3f * 40 * 2) * 4));
  }

  @Test
  void ketamaNamesServersAsTwemproxy() {
    Ketama<Integer> k = new Ketama<>(BalancerConfig.defaults(),
        HashConfig.builder().nameLabel("name").build());

    assertThat(k.nameOf(Endpoint.parse("10.0.0.1:11211"))).isEqualTo("10.0.0.1");
    assertThat(k.nameOf(Endpoint.parse("10.0.0.1:11212"))).isEqualTo("10.0.0.1:11212");
    assertThat(k.nameOf(Endpoint.parse("cache-1:6379;name=shard-a"))).isEqualTo("shard-a");
  }

  @Test
  void ringAddressesAreGrpcJavasSocketAddresses() {
    assertThat(RingHash.addressesOf(Endpoint.parse("10.0.0.1:443")).get(0))
        .hasToString("/10.0.0.1:443");
    assertThat(RingHash.addressesOf(Endpoint.parse("[::1]:443")).get(0))
        .hasToString("/[0:0:0:0:0:0:0:1]:443");
    assertThat(RingHash.addressesOf(Endpoint.parse("api.internal:443")).get(0))
        .hasToString("api.internal/<unresolved>:443");
  }

  @Test
  void keyHashesAreTheAlgorithmsOwn() {
    HashBalancer<Integer> ring = balancer("ring_hash", Fixtures.endpoints(1));
    HashBalancer<Integer> ketama = balancer("ketama", Fixtures.endpoints(1));

    // xxHash64 of "" and "abc" (the xxHash specification's examples), FNV-1a in 32 bits
    assertThat(ring.hash("")).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(ring.hash("abc")).isEqualTo(0x44BC2CF5AD770999L);
    assertThat(ketama.hash("")).isEqualTo(0x84222325L);
    assertThat(ring.hash("d\u00e9j\u00e0"))
        .isEqualTo(ring.hash(new StringBuilder("d\u00e9j\u00e0")));
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> HashConfig.builder().tableSize(65536))
        .hasMessage("tableSize: 65536 (expected: a prime from 2 to 16777216, e.g. 65537)");
    assertThatThrownBy(() -> HashConfig.builder().loadBound(0.5))
        .hasMessage("loadBound: 0.5 (expected: 0 for off, or 1 to 1000, e.g. 1.25)");
    assertThatThrownBy(() -> HashConfig.builder().minRingSize(0))
        .hasMessage("minRingSize: 0 (expected: 1 to 8388608)");
    assertThatThrownBy(() -> HashConfig.builder().minRingSize(5000).build())
        .hasMessage("minRingSize: 5000 (expected: <= maxRingSize 4096)");
    assertThatThrownBy(() -> KeyHash.fromName("sha1"))
        .hasMessage("keyHash: sha1 (expected: one of fnv1a_64, fnv1_64,"
            + " fnv1a_32, fnv1_32, md5,"
            + " crc32a, crc32, murmur, one_at_a_time)");
    assertThat(KeyHash.fromName("FNV1A-64")).isEqualTo(KeyHash.FNV1A_64);
  }
}

package dev.ballast.core.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SubsetSelectorTest {

  private static final List<Endpoint> THREE = Endpoint.parseList(
      "10.0.0.1:80;zone=a;version=1,10.0.0.2:80;zone=a;version=2,10.0.0.3:80;zone=b;version=1");

  private static SubsetSelector.Builder<String> builder() {
    return SubsetSelector.<String>builder()
        .selector("zone")
        .selector("zone", "version")
        .config(BalancerConfig.builder().random(new SplittableRandom(7)).build());
  }

  private static List<String> pickMany(SubsetSelector<String> s, RequestLabels labels, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Node<String> node = s.pick(labels);
      out.add(node.value());
      node.cancel();
    }
    return out;
  }

  @Test
  void picksOnlyFromTheMatchingSubset() {
    SubsetSelector<String> s = builder().build();
    s.update(THREE, Endpoint::address);

    assertThat(pickMany(s, RequestLabels.of("zone", "a"), 20))
        .containsOnly("10.0.0.1:80", "10.0.0.2:80").contains("10.0.0.1:80", "10.0.0.2:80");
    assertThat(pickMany(s, RequestLabels.of("zone", "a", "version", "1"), 5))
        .containsOnly("10.0.0.1:80");
    assertThat(pickMany(s, RequestLabels.of("version", "1", "zone", "b"), 5))
        .containsOnly("10.0.0.3:80");
    assertThat(s.pick(Map.of("zone", "b")).value()).isEqualTo("10.0.0.3:80");

    SubsetStats stats = s.stats();
    // zone=a, zone=b, {a,1}, {a,2}, {b,1}; {b} and {b,1} have the same member
    assertThat(stats.subsetCount()).isEqualTo(5);
    assertThat(stats.distinctMemberSets()).isEqualTo(4);
    assertThat(stats.subsets()).extracting(SubsetStats.SubsetInfo::endpoints)
        .containsExactly(2, 1, 1, 1, 1);
    assertThat(stats.misses()).isZero();
  }

  @Test
  void pickUncountedPicksLikePickButCountsNothing() {
    SubsetSelector<String> s = builder().fallbackPolicy(FallbackPolicy.ANY_ENDPOINT)
        .algorithm(Algorithm.LEAST_LOADED).build();
    s.update(THREE, Endpoint::address);
    List<String> inZone = new ArrayList<>();
    List<String> fallback = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      inZone.add(s.pickUncounted(RequestLabels.of("zone", "a")).value());
      fallback.add(s.pickUncounted(RequestLabels.of("zone", "c")).value());
    }

    assertThat(inZone).containsOnly("10.0.0.1:80", "10.0.0.2:80");
    assertThat(fallback).contains("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80");
    assertThat(s.members(RequestLabels.of("zone", "a"))).extracting(Node::pending)
        .containsOnly(0);
    assertThat(s.fallbackMembers()).extracting(Node::pending).containsOnly(0);
    assertThat(s.stats().misses()).isEqualTo(20);
    assertThat(s.stats().fallbacks()).isEqualTo(20);
    // the caller counts the request when it sends it; least_loaded then avoids that node
    Node<String> sent = s.pickUncounted(RequestLabels.of("zone", "a"));
    sent.start();
    for (int i = 0; i < 10; i++) {
      assertThat(s.pickUncounted(RequestLabels.of("zone", "a"))).isNotSameAs(sent);
    }
    sent.complete(1_000, true);
    assertThat(sent.pending()).isZero();
    assertThatThrownBy(() -> builder().build().pickUncounted(RequestLabels.of("zone", "a")))
        .isInstanceOf(NoAvailableEndpointException.class);
  }

  @Test
  void noFallbackThrowsNamingTheLabels() {
    SubsetSelector<String> s = builder().build();
    s.update(THREE, Endpoint::address);

    assertThatThrownBy(() -> s.pick(RequestLabels.of("zone", "c")))
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("{zone=c}")
        .hasMessageContaining("NO_FALLBACK");
    // keys that are no selector's: a miss too, without redundant keys; the selectors are named,
    // so that a selector's typo shows
    assertThatThrownBy(() -> s.pick(RequestLabels.of("version", "1")))
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageEndingWith(": request labels {version=1} match no subset of selectors"
            + " [[zone], [version, zone]] (fallback NO_FALLBACK)");
    assertThatThrownBy(() -> s.pick(RequestLabels.empty()))
        .isInstanceOf(NoAvailableEndpointException.class);
    assertThat(s.stats().misses()).isEqualTo(3);
    assertThat(s.stats().fallbacks()).isZero();
  }

  @Test
  void anyEndpointFallsBackToEveryEndpoint() {
    SubsetSelector<String> s = builder().fallbackPolicy(FallbackPolicy.ANY_ENDPOINT).build();
    assertThatThrownBy(() -> s.pick(RequestLabels.of("zone", "a")))
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("no endpoints");
    s.update(THREE, Endpoint::address);

    assertThat(pickMany(s, RequestLabels.of("zone", "c"), 30))
        .containsOnly("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80")
        .contains("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80");
    assertThat(s.stats().misses()).isEqualTo(31);
    assertThat(s.stats().fallbacks()).isEqualTo(30);
  }

  @Test
  void defaultSubsetServesMisses() {
    SubsetSelector<String> s = builder()
        .fallbackPolicy(FallbackPolicy.DEFAULT_SUBSET)
        .defaultSubset(Map.of("version", "1"))
        .build();
    s.update(THREE, Endpoint::address);

    assertThat(pickMany(s, RequestLabels.of("zone", "c"), 20))
        .containsOnly("10.0.0.1:80", "10.0.0.3:80").contains("10.0.0.1:80", "10.0.0.3:80");
    assertThat(s.fallbackMembers()).extracting(Node::address)
        .containsExactly("10.0.0.1:80", "10.0.0.3:80");
    assertThat(s.stats().defaultSubsetSize()).isEqualTo(2);
    assertThat(s.stats().fallbacks()).isEqualTo(20);
  }

  @Test
  void defaultSubsetMatchingNothingActsAsNoFallback() {
    SubsetSelector<String> s = builder()
        .fallbackPolicy(FallbackPolicy.DEFAULT_SUBSET)
        .defaultSubset(Map.of("version", "3"))
        .build();
    s.update(THREE, Endpoint::address);

    assertThat(s.stats().defaultSubsetSize()).isZero();
    assertThatThrownBy(() -> s.pick(RequestLabels.of("zone", "c")))
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("{zone=c}")
        .hasMessageContaining("DEFAULT_SUBSET {version=3} matches no endpoint");
    assertThat(s.stats().misses()).isEqualTo(1);
    assertThat(s.stats().fallbacks()).isZero();
    // subsets still work
    assertThat(s.pick(RequestLabels.of("zone", "b")).value()).isEqualTo("10.0.0.3:80");

    // once an endpoint has the default labels, misses go to it (an incremental update)
    List<Endpoint> more = new ArrayList<>(THREE);
    more.add(Endpoint.parse("10.0.0.4:80;zone=c2;version=3"));
    s.update(more, Endpoint::address);
    assertThat(s.pick(RequestLabels.of("zone", "c")).value()).isEqualTo("10.0.0.4:80");
    assertThat(s.stats().incrementalUpdates()).isEqualTo(1);
  }

  @Test
  void redundantKeysAreIgnoredOnlyWhenAllowed() {
    RequestLabels withExtra = RequestLabels.of("zone", "a", "version", "2", "trace", "on");
    SubsetSelector<String> strict = builder().build();
    strict.update(THREE, Endpoint::address);
    assertThat(strict.members(withExtra)).isEmpty();

    SubsetSelector<String> lenient = builder().allowRedundantKeys(true).build();
    lenient.update(THREE, Endpoint::address);
    assertThat(pickMany(lenient, withExtra, 3)).containsOnly("10.0.0.2:80");
    // only unknown keys: a miss
    assertThat(lenient.members(RequestLabels.of("trace", "on"))).isEmpty();
  }

  @Test
  void labelsSpanningSeveralSelectorsAreIntersected() {
    SubsetSelector<String> s = SubsetSelector.<String>builder()
        .selector("zone")
        .selector("version")
        .allowRedundantKeys(true)
        .build();
    s.update(THREE, Endpoint::address);
    RequestLabels both = RequestLabels.of("zone", "a", "version", "1");
    assertThat(s.members(both)).extracting(Node::address).containsExactly("10.0.0.1:80");
    assertThat(pickMany(s, both, 3)).containsOnly("10.0.0.1:80");
    assertThat(s.members(RequestLabels.of("zone", "b", "version", "2"))).isEmpty();

    // the cache is per update: after a relabel the same labels resolve again
    List<Endpoint> next = new ArrayList<>(THREE);
    next.set(2, Endpoint.parse("10.0.0.3:80;zone=b;version=2"));
    s.update(next, Endpoint::address);
    assertThat(s.members(RequestLabels.of("zone", "b", "version", "2")))
        .extracting(Node::address).containsExactly("10.0.0.3:80");
  }

  @Test
  void relabelledNodeKeepsItsLoadStateAndMovesSubset() {
    SubsetSelector<String> s = builder().rebuildThreshold(1).build();
    s.update(THREE, Endpoint::address);
    Node<String> picked = s.pick(RequestLabels.of("zone", "b"));
    assertThat(picked.pending()).isEqualTo(1);

    List<Endpoint> next = new ArrayList<>(THREE);
    next.set(2, Endpoint.parse("10.0.0.3:80;zone=c;version=1"));
    List<Node<String>> removed = s.update(next, a -> "new " + a);
    assertThat(removed).isEmpty();
    assertThat(s.members(RequestLabels.of("zone", "b"))).isEmpty();
    Node<String> again = s.pick(RequestLabels.of("zone", "c"));
    assertThat(again).isSameAs(picked);
    assertThat(again.pending()).isEqualTo(2);
    assertThat(again.value()).isEqualTo("10.0.0.3:80");
    assertThat(again.endpoint().label("zone")).isEqualTo("c");
    assertThat(s.stats().incrementalUpdates()).isEqualTo(1);
  }

  @Test
  void weightChangesReachTheChildBalancers() {
    for (double threshold : new double[] {0, 1}) {
      SubsetSelector<String> s = builder().algorithm(Algorithm.SWRR).rebuildThreshold(threshold)
          .build();
      s.update(THREE, Endpoint::address);
      RequestLabels zoneA = RequestLabels.of("zone", "a");
      List<String> before = pickMany(s, zoneA, 40);
      assertThat(before.stream().filter("10.0.0.1:80"::equals).count()).isEqualTo(20);

      List<Endpoint> next = new ArrayList<>(THREE);
      next.set(0, THREE.get(0).withWeight(3));
      s.update(next, Endpoint::address);
      List<String> after = pickMany(s, zoneA, 40);
      assertThat(after.stream().filter("10.0.0.1:80"::equals).count()).isEqualTo(30);
      // the narrower subset that holds the node was rebuilt too
      assertThat(s.members(RequestLabels.of("zone", "a", "version", "1")).get(0).weight())
          .isEqualTo(3);
    }
  }

  @Test
  void weightChangesReachChildrenOfSubsetsSharedBySelectors() {
    // {zone} and {zone, tier} have the same member sets (tier is the same everywhere), so they
    // share subsets and child balancers; a reweight must give both a new child
    List<Endpoint> hosts = List.of(
        Endpoint.of("10.0.0.1", 80, 1, Map.of("zone", "a", "tier", "t")),
        Endpoint.of("10.0.0.2", 80, 1, Map.of("zone", "a", "tier", "t")),
        Endpoint.of("10.0.0.3", 80, 1, Map.of("zone", "b", "tier", "t")));
    // wide: zone has 5000 values besides, so that the full build lists the values found in a
    // combination before ANDing (its way with keys of many values)
    for (int run = 0; run < 4; run++) {
      boolean delta = run % 2 == 1;
      boolean wide = run >= 2;
      SubsetSelector<String> s = SubsetSelector.<String>builder().selector("zone")
          .selector("zone", "tier").algorithm(Algorithm.VNSWRR).rebuildThreshold(1).build();
      List<Endpoint> all = new ArrayList<>(hosts);
      if (wide) {
        all.addAll(wideFiller(5000, "zone"));
      }
      s.update(all, Endpoint::address);
      RequestLabels zone = RequestLabels.of("zone", "a");
      RequestLabels zoneTier = RequestLabels.of("zone", "a", "tier", "t");
      int shared = s.stats().distinctMemberSets();
      assertThat(pickMany(s, zone, 4)).filteredOn("10.0.0.1:80"::equals).hasSize(2);
      assertThat(pickMany(s, zoneTier, 4)).filteredOn("10.0.0.1:80"::equals).hasSize(2);

      Endpoint heavy = hosts.get(0).withWeight(3);
      if (delta) {
        s.apply(List.of(heavy), List.of(), Endpoint::address);
      } else {
        all.set(0, heavy);
        s.update(all, Endpoint::address);
      }
      assertThat(s.stats().incrementalUpdates()).isEqualTo(1);
      // one cycle of weights 3 and 1 in each subset
      assertThat(pickMany(s, zone, 4)).filteredOn("10.0.0.1:80"::equals).hasSize(3);
      assertThat(pickMany(s, zoneTier, 4)).filteredOn("10.0.0.1:80"::equals).hasSize(3);
      assertThat(s.stats().distinctMemberSets()).isEqualTo(shared);
    }
  }

  @Test
  void aReweightedMemberThatMovesDoesNotLendItsOldChildToAnEqualSet() {
    // selectors {a} and {b}: X moves from a=1,b=1 to a=2,b=2 with weight 9, Y is a=1,b=2. The
    // new b=2 set {X,Y} equals the old a=1 set, whose child balancer has X at weight 1.
    Endpoint x = Endpoint.of("10.0.0.1", 80, 1, Map.of("a", "1", "b", "1"));
    Endpoint y = Endpoint.of("10.0.0.2", 80, 1, Map.of("a", "1", "b", "2"));
    Endpoint moved = Endpoint.of("10.0.0.1", 80, 9, Map.of("a", "2", "b", "2"));
    // wide: key a has 5000 values besides (a wide index row; the full build lists the values
    // found in a combination before ANDing)
    for (boolean wide : new boolean[] {false, true}) {
      for (boolean delta : new boolean[] {false, true}) {
        aReweightedMemberThatMoves(x, y, moved, wide, delta);
      }
    }
  }

  private static void aReweightedMemberThatMoves(Endpoint x, Endpoint y, Endpoint moved,
      boolean wide, boolean delta) {
    SubsetSelector<String> s = SubsetSelector.<String>builder().selector("a").selector("b")
        .algorithm(Algorithm.VNSWRR).rebuildThreshold(1).build();
    List<Endpoint> hosts = new ArrayList<>(wide ? wideFiller(5000, "a") : filler(20));
    hosts.addAll(List.of(x, y));
    s.update(hosts, Endpoint::address);
    assertThat(picksOf(s, RequestLabels.of("a", "1"), 10, "10.0.0.1:80")).isEqualTo(5);
    change(s, hosts, List.of(moved), delta);
    assertThat(s.stats().incrementalUpdates()).isEqualTo(1);
    // one VNSWRR cycle of weights 9 and 1, ten times over
    assertThat(picksOf(s, RequestLabels.of("b", "2"), 100, "10.0.0.1:80")).isEqualTo(90);
  }

  @Test
  void aReweightedMemberOfTheDefaultSubsetDoesNotLendItsOldChildToAnEqualSet() {
    // default {zone=a, tier=x} = {X,Y}; zone=a = {X,Y,Z}. One change moves Z to zone b and
    // gives X weight 9: zone=a becomes {X,Y}, equal to the default's old set.
    Endpoint x = Endpoint.of("10.0.0.1", 80, 1, Map.of("zone", "a", "tier", "x"));
    Endpoint y = Endpoint.of("10.0.0.2", 80, 1, Map.of("zone", "a", "tier", "x"));
    Endpoint z = Endpoint.of("10.0.0.3", 80, 1, Map.of("zone", "a", "tier", "w"));
    for (boolean delta : new boolean[] {false, true}) {
      SubsetSelector<String> s = SubsetSelector.<String>builder().selector("zone")
          .defaultSubset(Map.of("zone", "a", "tier", "x"))
          .fallbackPolicy(FallbackPolicy.DEFAULT_SUBSET).algorithm(Algorithm.VNSWRR)
          .rebuildThreshold(1).build();
      List<Endpoint> hosts = new ArrayList<>(filler(20));
      hosts.addAll(List.of(x, y, z));
      s.update(hosts, Endpoint::address);
      RequestLabels miss = RequestLabels.of("zone", "none");
      assertThat(picksOf(s, miss, 10, "10.0.0.1:80")).isEqualTo(5);
      change(s, hosts,
          List.of(x.withWeight(9), z.withLabels(Map.of("zone", "b", "tier", "w"))), delta);
      assertThat(s.stats().incrementalUpdates()).isEqualTo(1);
      assertThat(picksOf(s, RequestLabels.of("zone", "a"), 100, "10.0.0.1:80")).isEqualTo(90);
      assertThat(picksOf(s, miss, 100, "10.0.0.1:80")).isEqualTo(90);
    }
  }

  @Test
  void aDeltaWithANewValueAfterOtherChangesGivesTheSameSubsets() {
    // {a, b} with 47 or 20 values each: a new value of a, seen after other changes to the same
    // selector in one delta, grows the index row of a while the delta is being made
    for (int values : new int[] {47, 20}) {
      List<Endpoint> hosts = new ArrayList<>();
      for (int i = 0; i < values; i++) {
        hosts.add(Endpoint.of("10.0.1." + i, 80, 1, Map.of("a", "a" + i, "b", "b" + i)));
      }
      SubsetSelector<String> s = SubsetSelector.<String>builder().selector("a", "b")
          .selector("b").rebuildThreshold(1).build();
      s.update(hosts, Endpoint::address);
      List<Endpoint> delta = List.of(
          Endpoint.of("10.0.1.0", 80, 1, Map.of("a", "a0", "b", "b1")),
          Endpoint.of("10.0.1.2", 80, 1, Map.of("a", "a3", "b", "b2")),
          Endpoint.of("10.0.1.1", 80, 1, Map.of("a", "a" + values, "b", "b1")));
      s.apply(delta, List.of(), Endpoint::address);
      assertThat(s.stats().incrementalUpdates()).isEqualTo(1);

      List<Endpoint> after = new ArrayList<>(hosts);
      after.set(0, delta.get(0));
      after.set(2, delta.get(1));
      after.set(1, delta.get(2));
      SubsetSelector<String> reference = SubsetSelector.<String>builder().selector("a", "b")
          .selector("b").build();
      reference.update(after, Endpoint::address);
      assertThat(s.stats().subsetCount()).isEqualTo(reference.stats().subsetCount());
      for (SubsetStats.SubsetInfo info : reference.stats().subsets()) {
        assertThat(s.members(info.labels())).extracting(Node::address)
            .as("%s", info.labels())
            .isEqualTo(reference.members(info.labels()).stream().map(Node::address).toList());
      }
      assertThat(s.members(RequestLabels.of("a", "a0", "b", "b0"))).isEmpty();
      assertThat(s.members(RequestLabels.of("b", "b1"))).extracting(Node::address)
          .containsExactlyInAnyOrder("10.0.1.0:80", "10.0.1.1:80");
    }
  }

  /**
   * Applies the changed endpoints as a delta ({@code apply}), or as the whole list ({@code
   * update}) with each changed endpoint in place of the one with its address.
   */
  private static void change(SubsetSelector<String> s, List<Endpoint> hosts,
      List<Endpoint> changed, boolean delta) {
    if (delta) {
      s.apply(changed, List.of(), Endpoint::address);
      return;
    }
    for (Endpoint c : changed) {
      for (int i = 0; i < hosts.size(); i++) {
        if (hosts.get(i).address().equals(c.address())) {
          hosts.set(i, c);
        }
      }
    }
    s.update(hosts, Endpoint::address);
  }

  /** Returns how many of {@code n} picks with these labels chose the address. */
  private static long picksOf(SubsetSelector<String> s, RequestLabels labels, int n,
      String address) {
    return pickMany(s, labels, n).stream().filter(address::equals).count();
  }

  /** Endpoints in a zone and with labels of their own, so that the test's subsets stay small. */
  /** Filler hosts like {@link #filler}, but each with a value of its own for {@code key}. */
  private static List<Endpoint> wideFiller(int n, String key) {
    List<Endpoint> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, String> labels = new HashMap<>(Map.of("zone", "f", "tier", "f", "a", "f",
          "b", "f"));
      labels.put(key, "f" + i);
      list.add(Endpoint.of("10.2." + (i / 250) + "." + (i % 250 + 1), 80, 1, labels));
    }
    return list;
  }

  private static List<Endpoint> filler(int n) {
    List<Endpoint> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(Endpoint.of("10.1.0." + (i + 1), 80, 1,
          Map.of("zone", "f", "tier", "f", "a", "f", "b", "f")));
    }
    return list;
  }

  @Test
  void removedNodesAreReturnedAndSlotsReused() {
    SubsetSelector<String> s = builder().rebuildThreshold(1).build();
    s.update(THREE, Endpoint::address);
    Node<String> first = s.nodes().get(0);
    List<Node<String>> removed = s.update(THREE.subList(1, 3), Endpoint::address);
    assertThat(removed).containsExactly(first);
    assertThat(s.members(RequestLabels.of("zone", "a", "version", "1"))).isEmpty();

    // a new address takes the freed slot; the subsets it leaves and joins are right
    List<Endpoint> next = new ArrayList<>(THREE.subList(1, 3));
    next.add(Endpoint.parse("10.0.0.9:80;zone=b;version=2"));
    s.update(next, Endpoint::address);
    assertThat(s.members(RequestLabels.of("zone", "b"))).extracting(Node::address)
        .containsExactlyInAnyOrder("10.0.0.3:80", "10.0.0.9:80");
    assertThat(s.members(RequestLabels.of("zone", "a", "version", "1"))).isEmpty();
    assertThat(s.nodes()).extracting(Node::address)
        .containsExactly("10.0.0.2:80", "10.0.0.3:80", "10.0.0.9:80");
  }

  @Test
  void invalidUpdatesLeaveTheSelectorUntouched() {
    SubsetSelector<String> s = builder().build();
    s.update(THREE, Endpoint::address);
    List<Node<String>> nodes = s.nodes();
    SubsetStats stats = s.stats();

    List<Endpoint> dup = new ArrayList<>(THREE);
    dup.add(Endpoint.parse("10.0.0.1:80;zone=z"));
    assertThatThrownBy(() -> s.update(dup, Endpoint::address))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.1:80 given twice");
    List<Endpoint> twoNew = List.of(Endpoint.parse("10.0.0.7:80"), Endpoint.parse("10.0.0.7:80"));
    assertThatThrownBy(() -> s.update(twoNew, Endpoint::address))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.7:80 given twice");
    List<Endpoint> heavy = List.of(Endpoint.parse("10.0.0.1:80;weight=2147483647"),
        Endpoint.parse("10.0.0.2:80;weight=2"));
    assertThatThrownBy(() -> s.update(heavy, Endpoint::address))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weights: sum 2147483649");
    List<Endpoint> added = new ArrayList<>(THREE);
    added.add(Endpoint.parse("10.0.0.8:80;zone=a"));
    assertThatThrownBy(() -> s.update(added, e -> {
      throw new IllegalStateException("cannot connect");
    })).isInstanceOf(IllegalStateException.class);

    assertThat(s.nodes()).isEqualTo(nodes);
    assertThat(s.stats().subsets()).extracting(SubsetStats.SubsetInfo::labels)
        .isEqualTo(stats.subsets().stream().map(SubsetStats.SubsetInfo::labels).toList());
    assertThat(pickMany(s, RequestLabels.of("zone", "a"), 4))
        .containsOnly("10.0.0.1:80", "10.0.0.2:80");
    // and a valid update still works after the failures
    s.update(added, Endpoint::address);
    assertThat(s.members(RequestLabels.of("zone", "a"))).hasSize(3);
  }

  @Test
  void weightsAChildBalancerCannotHoldAreRejectedByTheUpdate() {
    // VNSWRR holds at most 2^24 virtual nodes (the sum of weight/gcd): 2^24 and 2^24 + 1 in one
    // subset is one too many, so the update or delta that makes that subset must fail, leaving
    // the selector as it was, rather than the subset's first pick
    Endpoint small = Endpoint.of("10.0.0.1", 80, 1, Map.of("zone", "a"));
    Endpoint big = Endpoint.of("10.0.0.2", 80, 1 << 24, Map.of("zone", "b"));
    Endpoint bigger = Endpoint.of("10.0.0.3", 80, (1 << 24) + 1, Map.of("zone", "b"));
    for (double threshold : new double[] {0, 1}) {
      SubsetSelector<String> s = SubsetSelector.<String>builder().selector("zone")
          .algorithm(Algorithm.VNSWRR).rebuildThreshold(threshold).build();
      s.update(List.of(small, big), Endpoint::address);
      List<Node<String>> nodes = s.nodes();
      assertThatThrownBy(() -> s.update(List.of(small, big, bigger), Endpoint::address))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("virtual nodes");
      assertThatThrownBy(() -> s.apply(List.of(bigger), List.of(), Endpoint::address))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("virtual nodes");
      assertThatThrownBy(() -> s.apply(List.of(small.withWeight((1 << 24) + 1),
          big.withLabels(Map.of("zone", "a"))), List.of(), Endpoint::address))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("virtual nodes");
      assertThat(s.nodes()).isSameAs(nodes);
      assertThat(s.members(RequestLabels.of("zone", "b"))).extracting(Node::address)
          .containsExactly("10.0.0.2:80");
      assertThat(s.pick(RequestLabels.of("zone", "b")).address()).isEqualTo("10.0.0.2:80");
      assertThat(s.pick(RequestLabels.of("zone", "a")).weight()).isEqualTo(1);
      // the same weights in subsets of their own are fine
      s.apply(List.of(bigger.withLabels(Map.of("zone", "c"))), List.of(), Endpoint::address);
      assertThat(s.pick(RequestLabels.of("zone", "c")).address()).isEqualTo("10.0.0.3:80");
    }
  }

  @Test
  void keyPickingChildBalancersAreMadeFromTheirSubsetsEndpoints() {
    // a ring, continuum or table is built from the members' endpoints (names, labels), which a
    // child made from validated nodes must get too
    for (Algorithm algorithm : List.of(Algorithm.RING_HASH, Algorithm.KETAMA, Algorithm.MAGLEV)) {
      SubsetSelector<String> s = builder().algorithm(algorithm).build();
      s.update(THREE, Endpoint::address);
      assertThat(pickMany(s, RequestLabels.of("zone", "a"), 20))
          .as(algorithm.toString()).containsOnly("10.0.0.1:80", "10.0.0.2:80");
      s.apply(List.of(THREE.get(2).withLabels(Map.of("zone", "a", "version", "1"))), List.of(),
          Endpoint::address);
      assertThat(pickMany(s, RequestLabels.of("zone", "a"), 20)).as(algorithm.toString())
          .containsAnyOf("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80")
          .isSubsetOf("10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80");
      assertThat(pickMany(s, RequestLabels.of("zone", "a", "version", "1"), 10))
          .as(algorithm.toString()).isSubsetOf("10.0.0.1:80", "10.0.0.3:80");
    }
  }

  @Test
  void aClosedSubsetDoesNotFallBack() {
    SubsetSelector<String> s = builder().fallbackPolicy(FallbackPolicy.ANY_ENDPOINT).build();
    s.update(THREE, Endpoint::address);
    s.members(RequestLabels.of("zone", "b")).get(0).setAvailability(Availability.CLOSED);
    assertThatThrownBy(() -> s.pick(RequestLabels.of("zone", "b")))
        .isInstanceOf(NoAvailableEndpointException.class)
        .hasMessageContaining("busy or closed");
    assertThat(s.stats().fallbacks()).isZero();
  }

  @Test
  void builderAndLabelsCheckTheirArguments() {
    assertThatThrownBy(() -> SubsetSelector.builder().selector())
        .hasMessageContaining("expected: at least one key");
    assertThatThrownBy(() -> SubsetSelector.builder().selector("a", "a"))
        .hasMessageContaining("key a given twice");
    assertThatThrownBy(() -> SubsetSelector.builder().selector("a", "b").selector("b", "a"))
        .hasMessageContaining("[a, b]: given twice");
    assertThatThrownBy(() -> SubsetSelector.builder().rebuildThreshold(1.5))
        .hasMessageContaining("rebuildThreshold: 1.5 (expected: 0-1)");
    assertThatThrownBy(() -> SubsetSelector.builder().resolutionCacheSize(0))
        .hasMessageContaining("resolutionCacheSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> SubsetSelector.builder()
        .fallbackPolicy(FallbackPolicy.DEFAULT_SUBSET).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("defaultSubset: not set");
    assertThatThrownBy(() -> RequestLabels.of("zone"))
        .hasMessageContaining("expected: an even number");
    assertThatThrownBy(() -> RequestLabels.of("zone", "a", "zone", "b"))
        .hasMessageContaining("label zone: given twice");
    assertThatThrownBy(() -> RequestLabels.of("zone", ""))
        .hasMessageContaining("label zone: empty value");
  }

  @Test
  void requestLabelsAreValuesSortedByKey() {
    Map<String, String> map = new HashMap<>();
    map.put("zone", "a");
    map.put("app", "x");
    RequestLabels a = RequestLabels.of(map);
    RequestLabels b = RequestLabels.of("zone", "a", "app", "x");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.toString()).isEqualTo("{app=x, zone=a}");
    assertThat(a.get("zone")).isEqualTo("a");
    assertThat(a.get("none")).isNull();
    assertThat(a.asMap()).isEqualTo(map);
    assertThat(a).isNotEqualTo(RequestLabels.of("zone", "a", "app", "y"));
    assertThat(RequestLabels.of(Map.of())).isSameAs(RequestLabels.empty());
  }

  @Test
  void pickingAPreIndexedSubsetAllocatesNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      endpoints.add(Endpoint.of("10.1.0." + (i + 1), 80, 1,
          Map.of("zone", "z" + (i % 3), "version", "v" + (i % 2))));
    }
    SubsetSelector<String> s = builder().build();
    s.update(endpoints, Endpoint::address);
    RequestLabels labels = RequestLabels.of("zone", "z1", "version", "v0");
    for (int i = 0; i < 20_000; i++) {
      s.pick(labels).cancel();
    }
    long id = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(id);
    for (int i = 0; i < 100_000; i++) {
      s.pick(labels).cancel();
    }
    long allocated = threads.getThreadAllocatedBytes(id) - before;
    // 100k picks: zero per pick; allow a few hundred bytes for the measuring itself
    assertThat(allocated).isLessThan(1_000);
  }
}

package dev.ballast.core.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Random endpoint sets, selectors and update sequences, checked against a brute-force filter
 * after every update, for the full build and the incremental update alike.
 */
class SubsetSelectorPropertyTest {

  private String[] keys = {"zone", "version", "stage", "tenant", "hw"};
  // a selector over keys no endpoint has, only to have more index keys (null: none)
  private List<String> padSelector;
  // a key whose values are drawn from thousands rather than from valueCount (null: none)
  private String wideKey;

  private long deltaPatches;

  @Test
  void subsetsEqualBruteForceOverManySeeds() {
    for (long seed = 1; seed <= 100; seed++) {
      runSeed(seed);
    }
    // the deltas took the incremental path most of the time
    assertThat(deltaPatches).isGreaterThan(300);
  }

  /**
   * With more than 64 index keys: 66 padding keys that no endpoint has sort before the label
   * keys, so that the index has empty rows and most label keys sit past position 64.
   */
  @Test
  void subsetsEqualBruteForceWithMoreThan64IndexKeys() {
    List<String> pad = new ArrayList<>();
    for (int i = 0; i < 66; i++) {
      pad.add(String.format("a%02d", i));
    }
    padSelector = pad;
    for (long seed = 1; seed <= 30; seed++) {
      runSeed(seed);
    }
    assertThat(deltaPatches).isGreaterThan(90);
  }

  /**
   * With one key taking values from thousands (a few hundred seen per seed): its index row grows
   * past the previous states' in most updates, and a full build lists the values found in a
   * combination's members before ANDing their sets (its way with keys of many values).
   */
  @Test
  void subsetsEqualBruteForceWithThousandsOfValues() {
    wideKey = "tenant";
    for (long seed = 1; seed <= 30; seed++) {
      runSeed(seed);
    }
    assertThat(deltaPatches).isGreaterThan(90);
  }

  private void runSeed(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<List<String>> selectors = randomSelectors(r);
    boolean redundant = r.nextBoolean();
    FallbackPolicy policy = FallbackPolicy.values()[r.nextInt(3)];
    Map<String, String> defaults = new TreeMap<>();
    int defaultCount = r.nextInt(3);
    for (int i = 0; i < defaultCount; i++) {
      // v9 never occurs: then the default subset matches nothing and acts as NO_FALLBACK
      defaults.put(keys[r.nextInt(keys.length)], r.nextInt(4) == 0 ? "v9" : "v" + r.nextInt(2));
    }
    // Three selectors over the same model: always full, always incremental, default threshold.
    List<SubsetSelector<String>> selectorsUnderTest = new ArrayList<>();
    for (double threshold : new double[] {0, 1, 0.25}) {
      selectorsUnderTest.add(SubsetSelector.<String>builder()
          .selectors(selectors)
          .allowRedundantKeys(redundant)
          .rebuildThreshold(threshold)
          .fallbackPolicy(policy)
          .defaultSubset(defaults)
          .build());
    }
    int valueCount = 1 + r.nextInt(4);
    Map<String, Endpoint> model = new LinkedHashMap<>();
    int nextHost = 0;
    int initial = r.nextInt(120);
    for (int i = 0; i < initial; i++) {
      Endpoint e = randomEndpoint(r, nextHost++, valueCount);
      model.put(e.address(), e);
    }
    // Two more fed the same changes as deltas (apply): always patching, default threshold; and
    // a reference updated with the full list (always rebuilding) to compare them with.
    List<SubsetSelector<String>> deltaSelectors = new ArrayList<>();
    for (double threshold : new double[] {1, 0.25, 0}) {
      deltaSelectors.add(SubsetSelector.<String>builder()
          .selectors(selectors)
          .allowRedundantKeys(redundant)
          .rebuildThreshold(threshold)
          .fallbackPolicy(policy)
          .defaultSubset(defaults)
          .build());
    }
    // the order apply gives: survivors in place, new addresses appended in delta order
    Map<String, Endpoint> deltaOrder = new LinkedHashMap<>();
    int updatesFromEmpty = 0;
    for (int round = 0; round < 8; round++) {
      List<Endpoint> list = new ArrayList<>(model.values());
      checkDeltas(seed, round, r, deltaSelectors.subList(0, 2), deltaOrder, model, selectors,
          redundant, defaults, deltaSelectors.get(2));
      if (selectorsUnderTest.get(0).nodes().isEmpty() && !list.isEmpty()) {
        updatesFromEmpty++;
      }
      for (SubsetSelector<String> s : selectorsUnderTest) {
        Map<String, Node<String>> before = new HashMap<>();
        for (Node<String> n : s.nodes()) {
          before.put(n.address(), n);
        }
        List<Node<String>> removed = s.update(list, Endpoint::address);
        Set<String> removedAddresses = new HashSet<>();
        for (Node<String> n : removed) {
          removedAddresses.add(n.address());
        }
        Set<String> expectedRemoved = new HashSet<>(before.keySet());
        expectedRemoved.removeAll(model.keySet());
        assertThat(removedAddresses).as("seed %d round %d removed", seed, round)
            .isEqualTo(expectedRemoved);
        check(seed, round, s, selectors, list, redundant, defaults, r);
        // Surviving addresses keep their node (and so its load state).
        for (Node<String> n : s.nodes()) {
          if (before.containsKey(n.address())) {
            assertThat(n).isSameAs(before.get(n.address()));
          }
        }
      }
      if (round == 7) {
        deltaPatches += deltaSelectors.get(0).stats().incrementalUpdates();
        // threshold 0 always rebuilds; threshold 1 always patches after the first build
        assertThat(selectorsUnderTest.get(0).stats().incrementalUpdates()).isZero();
        assertThat(selectorsUnderTest.get(1).stats().fullBuilds()).isEqualTo(updatesFromEmpty);
      }
      mutate(r, model, valueCount, nextHost);
      nextHost += 200;
    }
  }

  /**
   * Applies the change from {@code deltaOrder} to {@code model} as a delta (upserts in random
   * order, with some unchanged endpoints and unknown removals mixed in), after a rejected invalid
   * delta, then checks the delta selectors against the brute-force filter and, after the full
   * selector's update, against it.
   */
  private void checkDeltas(long seed, int round, SplittableRandom r,
      List<SubsetSelector<String>> deltaSelectors, Map<String, Endpoint> deltaOrder,
      Map<String, Endpoint> model, List<List<String>> selectors, boolean redundant,
      Map<String, String> defaults, SubsetSelector<String> reference) {
    List<Endpoint> upserts = new ArrayList<>();
    for (Endpoint e : model.values()) {
      Endpoint old = deltaOrder.get(e.address());
      if (!e.equals(old) || r.nextInt(8) == 0) {
        upserts.add(e); // changed, new, or (sometimes) the same again: no change
      }
    }
    java.util.Collections.shuffle(upserts, new java.util.Random(r.nextLong()));
    List<String> removals = new ArrayList<>();
    for (String a : deltaOrder.keySet()) {
      if (!model.containsKey(a)) {
        removals.add(a);
      }
    }
    if (r.nextInt(3) == 0) {
      removals.add("192.0.2.1:1"); // never known: ignored
    }
    java.util.Collections.shuffle(removals, new java.util.Random(r.nextLong()));
    for (SubsetSelector<String> s : deltaSelectors) {
      String ctx = "seed " + seed + " round " + round + " delta " + s.stats();
      List<Node<String>> nodesBefore = s.nodes();
      SubsetStats statsBefore = s.stats();
      // Invalid deltas are rejected whole, leaving the state untouched.
      if (!upserts.isEmpty() || !removals.isEmpty()) {
        List<Endpoint> dupUpserts = new ArrayList<>(upserts);
        List<String> dupRemovals = new ArrayList<>(removals);
        if (!upserts.isEmpty() && r.nextBoolean()) {
          dupRemovals.add(upserts.get(r.nextInt(upserts.size())).address());
        } else if (!upserts.isEmpty()) {
          dupUpserts.add(upserts.get(r.nextInt(upserts.size())));
        } else {
          dupRemovals.add(removals.get(0));
        }
        assertThatThrownBy(() -> s.apply(dupUpserts, dupRemovals, Endpoint::address))
            .as(ctx).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
      }
      List<Endpoint> heavy = new ArrayList<>(upserts);
      heavy.add(Endpoint.of("10.9.9.9", 1, Integer.MAX_VALUE / 2 + 1, Map.of()));
      heavy.add(Endpoint.of("10.9.9.8", 1, Integer.MAX_VALUE / 2 + 1, Map.of()));
      assertThatThrownBy(() -> s.apply(heavy, removals, Endpoint::address))
          .as(ctx).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weights");
      Set<String> known = new HashSet<>();
      for (Node<String> n : nodesBefore) {
        known.add(n.address());
      }
      boolean adds = upserts.stream().anyMatch(e -> !known.contains(e.address()));
      if (adds) {
        // a throwing value factory (called after validation) also leaves all untouched
        assertThatThrownBy(() -> s.apply(upserts, removals, e -> {
          throw new IllegalStateException("no value");
        })).as(ctx).isInstanceOf(IllegalStateException.class).hasMessage("no value");
      }
      assertThat(s.nodes()).as(ctx).isSameAs(nodesBefore);
      assertThat(infos(s.stats())).as(ctx).isEqualTo(infos(statsBefore));

      Map<String, Node<String>> before = new HashMap<>();
      for (Node<String> n : s.nodes()) {
        before.put(n.address(), n);
      }
      List<Node<String>> removed;
      if (adds) {
        removed = s.apply(upserts, removals, Endpoint::address);
      } else {
        // no new address: the value factory must not be called
        removed = s.apply(upserts, removals, e -> {
          throw new AssertionError("value for " + e);
        });
      }
      Set<String> removedAddresses = new HashSet<>();
      for (Node<String> n : removed) {
        assertThat(n).as(ctx).isSameAs(before.get(n.address()));
        removedAddresses.add(n.address());
      }
      Set<String> expectedRemoved = new HashSet<>(before.keySet());
      expectedRemoved.removeAll(model.keySet());
      assertThat(removedAddresses).as(ctx).isEqualTo(expectedRemoved);
      for (Node<String> n : s.nodes()) {
        if (before.containsKey(n.address())) {
          assertThat(n).as(ctx).isSameAs(before.get(n.address()));
        }
      }
    }
    deltaOrder.keySet().retainAll(model.keySet());
    for (Endpoint e : upserts) {
      deltaOrder.put(e.address(), e);
    }
    List<Endpoint> expectedOrder = new ArrayList<>(deltaOrder.values());
    for (SubsetSelector<String> s : deltaSelectors) {
      check(seed, round, s, selectors, expectedOrder, redundant, defaults, r);
    }
    // The same subsets and fallback as a full update with the whole list.
    reference.update(new ArrayList<>(model.values()), Endpoint::address);
    for (SubsetSelector<String> s : deltaSelectors) {
      String ctx = "seed " + seed + " round " + round + " delta vs full " + s.stats();
      assertThat(infos(s.stats())).as(ctx).isEqualTo(infos(reference.stats()));
      assertThat(s.stats().distinctMemberSets()).as(ctx)
          .isEqualTo(reference.stats().distinctMemberSets());
      for (SubsetStats.SubsetInfo info : reference.stats().subsets()) {
        assertThat(addresses(s.members(info.labels()))).as(ctx)
            .isEqualTo(addresses(reference.members(info.labels())));
      }
      assertThat(addresses(s.fallbackMembers())).as(ctx)
          .isEqualTo(addresses(reference.fallbackMembers()));
    }
  }

  private static List<String> infos(SubsetStats stats) {
    List<String> out = new ArrayList<>();
    for (SubsetStats.SubsetInfo info : stats.subsets()) {
      out.add(info.labels() + "=" + info.endpoints());
    }
    return out;
  }

  private void check(long seed, int round, SubsetSelector<String> s, List<List<String>> selectors,
      List<Endpoint> endpoints, boolean redundant, Map<String, String> defaults,
      SplittableRandom r) {
    String ctx = "seed " + seed + " round " + round + " " + s.stats();
    // nodes() in update order, each with its new endpoint
    List<Endpoint> actual = new ArrayList<>();
    for (Node<String> n : s.nodes()) {
      actual.add(n.endpoint());
    }
    assertThat(actual).as(ctx).isEqualTo(endpoints);

    Map<RequestLabels, Set<String>> expected = new HashMap<>();
    for (List<String> keys : selectors) {
      expected.putAll(bruteForce(keys, endpoints));
    }
    Map<RequestLabels, Set<String>> got = new HashMap<>();
    for (SubsetStats.SubsetInfo info : s.stats().subsets()) {
      Set<String> members = addresses(s.members(info.labels()));
      assertThat(members).as(ctx).hasSize(info.endpoints());
      got.put(info.labels(), members);
    }
    assertThat(got).as(ctx).isEqualTo(expected);
    assertThat(s.stats().subsetCount()).as(ctx).isEqualTo(expected.size());
    // Equal member sets share one child; different ones do not.
    Set<Set<String>> distinct = new HashSet<>(expected.values());
    Set<String> fallbackSet = fallbackSet(s.fallbackPolicy(), endpoints, defaults);
    if (!fallbackSet.isEmpty()) {
      distinct.add(fallbackSet);
    }
    assertThat(s.stats().distinctMemberSets()).as(ctx).isEqualTo(distinct.size());

    // Every subset picks only its own members.
    for (Map.Entry<RequestLabels, Set<String>> e : expected.entrySet()) {
      for (int i = 0; i < 3; i++) {
        Node<String> n = s.pick(e.getKey());
        n.cancel();
        assertThat(e.getValue()).as(ctx).contains(n.address());
      }
    }

    // Random request labels: exact selectors hit, others miss or (redundant keys) intersect.
    Set<String> selectorKeys = new TreeSet<>();
    selectors.forEach(selectorKeys::addAll);
    long misses = s.stats().misses();
    long fallbacks = s.stats().fallbacks();
    long[] counts = new long[2];
    for (int q = 0; q < 20; q++) {
      Map<String, String> req = new TreeMap<>();
      for (String k : keys) {
        if (r.nextInt(3) == 0) {
          req.put(k, "v" + r.nextInt(4));
        }
      }
      if (r.nextInt(4) == 0) {
        req.put("unknown", "x");
      }
      RequestLabels labels = RequestLabels.of(req);
      Set<String> want;
      boolean exact = selectors.contains(new ArrayList<>(req.keySet()));
      if (exact) {
        want = filter(req, endpoints);
      } else if (redundant) {
        Map<String, String> known = new TreeMap<>(req);
        known.keySet().retainAll(selectorKeys);
        want = known.isEmpty() ? Set.of() : filter(known, endpoints);
      } else {
        want = Set.of();
      }
      assertThat(addresses(s.members(labels))).as(ctx + " request " + req).isEqualTo(want);
      // a second time: served from the cache, same answer
      assertThat(addresses(s.members(labels))).as(ctx + " request " + req).isEqualTo(want);
      checkPick(s, labels, want, endpoints, defaults, ctx + " request " + req, counts);
    }
    assertThat(s.stats().misses() - misses).as(ctx).isEqualTo(counts[0]);
    assertThat(s.stats().fallbacks() - fallbacks).as(ctx).isEqualTo(counts[1]);
  }

  /** A pick goes to the matching set, else to the fallback set, else fails naming the labels. */
  private static void checkPick(SubsetSelector<String> s, RequestLabels labels, Set<String> want,
      List<Endpoint> endpoints, Map<String, String> defaults, String ctx, long[] counts) {
    Set<String> fallback = fallbackSet(s.fallbackPolicy(), endpoints, defaults);
    assertThat(addresses(s.fallbackMembers())).as(ctx).isEqualTo(fallback);
    Set<String> allowed = want.isEmpty() ? fallback : want;
    if (allowed.isEmpty()) {
      assertThatThrownBy(() -> s.pick(labels)).as(ctx)
          .isInstanceOf(NoAvailableEndpointException.class)
          .hasMessageContaining(labels.toString())
          .hasMessageContaining(s.fallbackPolicy().name());
    } else {
      Node<String> n = s.pick(labels);
      n.cancel();
      assertThat(allowed).as(ctx).contains(n.address());
    }
    if (want.isEmpty()) {
      counts[0]++;
      if (!fallback.isEmpty()) {
        counts[1]++;
      }
    }
  }

  private static Set<String> fallbackSet(FallbackPolicy policy, List<Endpoint> endpoints,
      Map<String, String> defaults) {
    switch (policy) {
      case ANY_ENDPOINT:
        return filter(Map.of(), endpoints);
      case DEFAULT_SUBSET:
        return filter(defaults, endpoints);
      default:
        return Set.of();
    }
  }

  static Map<RequestLabels, Set<String>> bruteForce(List<String> keys, List<Endpoint> endpoints) {
    Map<RequestLabels, Set<String>> out = new HashMap<>();
    for (Endpoint e : endpoints) {
      Map<String, String> tuple = new TreeMap<>();
      for (String k : keys) {
        if (e.label(k) != null) {
          tuple.put(k, e.label(k));
        }
      }
      if (tuple.size() == keys.size()) {
        out.computeIfAbsent(RequestLabels.of(tuple), x -> new HashSet<>()).add(e.address());
      }
    }
    return out;
  }

  static Set<String> filter(Map<String, String> labels, List<Endpoint> endpoints) {
    Set<String> out = new HashSet<>();
    for (Endpoint e : endpoints) {
      if (e.labels().entrySet().containsAll(labels.entrySet())) {
        out.add(e.address());
      }
    }
    return out;
  }

  static Set<String> addresses(List<Node<String>> nodes) {
    Set<String> out = new HashSet<>();
    for (Node<String> n : nodes) {
      assertThat(out.add(n.address())).isTrue();
    }
    return out;
  }

  private List<List<String>> randomSelectors(SplittableRandom r) {
    Set<List<String>> out = new java.util.LinkedHashSet<>();
    int count = 1 + r.nextInt(6);
    for (int i = 0; i < count; i++) {
      TreeSet<String> chosen = new TreeSet<>();
      int size = 1 + r.nextInt(3);
      while (chosen.size() < size) {
        chosen.add(keys[r.nextInt(keys.length)]);
      }
      out.add(new ArrayList<>(chosen));
    }
    if (padSelector != null) {
      out.add(padSelector);
    }
    return new ArrayList<>(out);
  }

  private Endpoint randomEndpoint(SplittableRandom r, int host, int valueCount) {
    Map<String, String> labels = randomLabels(r, valueCount);
    return Endpoint.of("10.0." + (host / 250) + "." + (host % 250 + 1), 8080, 1 + r.nextInt(3),
        labels);
  }

  private Map<String, String> randomLabels(SplittableRandom r, int valueCount) {
    Map<String, String> labels = new HashMap<>();
    for (String k : keys) {
      if (r.nextInt(5) != 0) {
        labels.put(k, k.equals(wideKey) ? "w" + r.nextInt(5000) : "v" + r.nextInt(valueCount));
      }
    }
    return labels;
  }

  /** Adds, removes, relabels and reweights a random handful (sometimes most) of endpoints. */
  private void mutate(SplittableRandom r, Map<String, Endpoint> model, int valueCount,
      int nextHost) {
    List<String> addresses = new ArrayList<>(model.keySet());
    int changes = r.nextInt(4) == 0 ? model.size() : r.nextInt(1 + Math.max(1, model.size() / 10));
    for (int c = 0; c < changes && !addresses.isEmpty(); c++) {
      String a = addresses.get(r.nextInt(addresses.size()));
      Endpoint e = model.get(a);
      if (e == null) {
        continue;
      }
      switch (r.nextInt(4)) {
        case 0:
          model.remove(a);
          break;
        case 1:
          model.put(a, e.withLabels(randomLabels(r, valueCount)));
          break;
        case 2:
          model.put(a, e.withWeight(1 + r.nextInt(5)));
          break;
        default:
          // relabel one key only
          Map<String, String> labels = new HashMap<>(e.labels());
          labels.put(keys[r.nextInt(keys.length)], "v" + r.nextInt(valueCount));
          model.put(a, e.withLabels(labels));
      }
    }
    int adds = r.nextInt(6);
    for (int i = 0; i < adds; i++) {
      Endpoint e = randomEndpoint(r, nextHost + i, valueCount);
      model.put(e.address(), e);
    }
    // Sometimes shuffle the order: the selector must follow it.
    if (r.nextInt(3) == 0) {
      List<Map.Entry<String, Endpoint>> entries = new ArrayList<>(model.entrySet());
      java.util.Collections.reverse(entries);
      model.clear();
      entries.forEach(en -> model.put(en.getKey(), en.getValue()));
    }
  }
}

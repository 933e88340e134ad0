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

  private static final String[] KEYS = {"zone", "version", "stage", "tenant", "hw"};

  @Test
  void subsetsEqualBruteForceOverManySeeds() {
    for (long seed = 1; seed <= 100; seed++) {
      runSeed(seed);
    }
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
      defaults.put(KEYS[r.nextInt(KEYS.length)], r.nextInt(4) == 0 ? "v9" : "v" + r.nextInt(2));
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
    int updatesFromEmpty = 0;
    for (int round = 0; round < 8; round++) {
      List<Endpoint> list = new ArrayList<>(model.values());
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
        // threshold 0 always rebuilds; threshold 1 always patches after the first build
        assertThat(selectorsUnderTest.get(0).stats().incrementalUpdates()).isZero();
        assertThat(selectorsUnderTest.get(1).stats().fullBuilds()).isEqualTo(updatesFromEmpty);
      }
      mutate(r, model, valueCount, nextHost);
      nextHost += 200;
    }
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
      for (String k : KEYS) {
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

  private static List<List<String>> randomSelectors(SplittableRandom r) {
    Set<List<String>> out = new java.util.LinkedHashSet<>();
    int count = 1 + r.nextInt(6);
    for (int i = 0; i < count; i++) {
      TreeSet<String> keys = new TreeSet<>();
      int size = 1 + r.nextInt(3);
      while (keys.size() < size) {
        keys.add(KEYS[r.nextInt(KEYS.length)]);
      }
      out.add(new ArrayList<>(keys));
    }
    return new ArrayList<>(out);
  }

  private static Endpoint randomEndpoint(SplittableRandom r, int host, int valueCount) {
    Map<String, String> labels = randomLabels(r, valueCount);
    return Endpoint.of("10.0." + (host / 250) + "." + (host % 250 + 1), 8080, 1 + r.nextInt(3),
        labels);
  }

  private static Map<String, String> randomLabels(SplittableRandom r, int valueCount) {
    Map<String, String> labels = new HashMap<>();
    for (String k : KEYS) {
      if (r.nextInt(5) != 0) {
        labels.put(k, "v" + r.nextInt(valueCount));
      }
    }
    return labels;
  }

  /** Adds, removes, relabels and reweights a random handful (sometimes most) of endpoints. */
  private static void mutate(SplittableRandom r, Map<String, Endpoint> model, int valueCount,
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
          labels.put(KEYS[r.nextInt(KEYS.length)], "v" + r.nextInt(valueCount));
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

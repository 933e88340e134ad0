package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Label sets that are no selector, resolved by intersection against a state's own index sets:
 * an older state keeps answering for its own endpoints while later updates add values.
 */
class SubsetStateTest {

  @Test
  void olderStatesResolveAgainstTheirOwnEndpointsWhileValuesAppear() {
    SplittableRandom r = new SplittableRandom(5);
    // selectors {zone} and {ver}: a request for zone and ver together is no selector
    SubsetIndex<String> ix = new SubsetIndex<>(
        () -> Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults()),
        List.of(List.of("zone"), List.of("ver")), null, 0.5, 1000,
        (keys, values) -> {
          Map<String, String> m = new HashMap<>();
          for (int i = 0; i < keys.length; i++) {
            m.put(keys[i], values[i]);
          }
          return RequestLabels.of(m);
        });
    Map<String, Endpoint> current = new HashMap<>();
    List<SubsetState<String>> states = new ArrayList<>();
    List<Map<String, Endpoint>> endpointsOf = new ArrayList<>();
    for (int step = 0; step < 300; step++) {
      // more values over time, so that later updates add value ids older states lack
      int zones = step / 20 + 3;
      int versions = step / 10 + 3;
      Map<String, Endpoint> upserts = new LinkedHashMap<>();
      List<String> removals = new ArrayList<>();
      int n = step == 0 ? 200 : 1 + r.nextInt(6);
      for (int j = 0; j < n; j++) {
        String address = "10.0.0." + r.nextInt(250) + ":80";
        if (step > 0 && r.nextInt(4) == 0 && current.containsKey(address)
            && !upserts.containsKey(address)) {
          if (!removals.contains(address)) {
            removals.add(address);
          }
          continue;
        }
        if (removals.contains(address)) {
          continue;
        }
        upserts.put(address, Endpoint.of(address.substring(0, address.length() - 3), 80,
            1 + r.nextInt(3), Map.of("zone", "z" + r.nextInt(zones), "ver",
                "v" + r.nextInt(versions), "extra", "e" + r.nextInt(3))));
      }
      Map<String, Endpoint> next = new HashMap<>(current);
      removals.forEach(next::remove);
      next.putAll(upserts);
      if (r.nextBoolean()) {
        ix.apply(upserts.values(), removals, Endpoint::address);
      } else {
        ix.update(new ArrayList<>(next.values()), Endpoint::address);
      }
      current = next;
      states.add(ix.state());
      endpointsOf.add(current);
      for (int g = Math.max(0, states.size() - 30); g < states.size(); g++) {
        for (int q = 0; q < 4; q++) {
          String zone = "z" + r.nextInt(zones);
          String ver = "v" + r.nextInt(versions);
          Set<String> want = new TreeSet<>();
          for (Endpoint e : endpointsOf.get(g).values()) {
            if (e.label("zone").equals(zone) && e.label("ver").equals(ver)) {
              want.add(e.address());
            }
          }
          Subset<String> got = states.get(g).resolve(
              RequestLabels.of("zone", zone, "ver", ver, "extra", "e" + r.nextInt(3)));
          Set<String> have = new TreeSet<>();
          if (got != null) {
            for (Node<String> node : got.nodes()) {
              have.add(node.address());
            }
          }
          assertThat(have).as("step %d, state %d, zone %s ver %s", step, g, zone, ver)
              .isEqualTo(want);
        }
      }
    }
    assertThat(ix.incrementalUpdates()).isGreaterThan(50);
    assertThat(ix.fullBuilds()).isGreaterThan(0);
  }
}

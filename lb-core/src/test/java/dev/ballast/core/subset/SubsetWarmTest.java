package dev.ballast.core.subset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An update makes the child balancers of the subsets that replace subsets in use, so that the
 * next pick of their labels does not (a caller's thread would build a balancer over the members);
 * a subset nobody picked from still costs no balancer.
 */
class SubsetWarmTest {

  private static final String THREE =
      "10.0.0.1:80;zone=a,10.0.0.2:80;zone=a,10.0.0.3:80;zone=b";

  // what the selector was doing when it made each child balancer
  private final AtomicReference<String> doing = new AtomicReference<>("building");
  private final List<String> made = new ArrayList<>();

  private SubsetSelector<String> selector() {
    BalancerConfig config = BalancerConfig.builder().random(new SplittableRandom(7)).build();
    return SubsetSelector.<String>builder().selector("zone").balancerFactory(() -> {
      made.add(doing.get());
      return Algorithm.ROUND_ROBIN.create(config);
    }).build();
  }

  private void update(SubsetSelector<String> s, String endpoints) {
    doing.set("update");
    s.update(Endpoint.parseList(endpoints), Endpoint::address);
  }

  private void pick(SubsetSelector<String> s, String zone) {
    doing.set("pick " + zone);
    s.pick(RequestLabels.of("zone", zone)).cancel();
  }

  @Test
  void aSubsetInUseThatAnUpdateReplacesGetsItsChildFromTheUpdate() {
    SubsetSelector<String> s = selector();
    update(s, THREE);
    pick(s, "a");
    made.clear();
    // 10.0.0.2 reweighted: zone a's member set has another weight, so a new subset
    update(s, "10.0.0.1:80;zone=a,10.0.0.2:80;zone=a;weight=3,10.0.0.3:80;zone=b");
    assertThat(made).containsExactly("update");
    pick(s, "a");
    assertThat(made).as("the pick finds the child made").containsExactly("update");
    // a member leaves: again
    update(s, "10.0.0.1:80;zone=a,10.0.0.3:80;zone=b");
    pick(s, "a");
    assertThat(made).containsExactly("update", "update");
  }

  @Test
  void aSubsetNobodyPickedFromCostsNoBalancer() {
    SubsetSelector<String> s = selector();
    update(s, THREE);
    pick(s, "a");
    made.clear();
    // only zone b changes, and nobody picked from it
    update(s, "10.0.0.1:80;zone=a,10.0.0.2:80;zone=a,10.0.0.3:80;zone=b;weight=2");
    assertThat(made).isEmpty();
    pick(s, "b");
    assertThat(made).containsExactly("pick b");
  }
}

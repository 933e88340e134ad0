package dev.ballast.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures;
import dev.ballast.core.HashConfig;
import dev.ballast.core.engine.EngineTesting;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Maglev's table: shares, disruption on removal, weights, order independence, bad sizes. */
class MaglevTest {

  /** The address owning each table entry. */
  static String[] owners(Balancer<?> b) {
    HashSnapshot<?> s = (HashSnapshot<?>) EngineTesting.current(b);
    String[] owners = new String[s.positions()];
    for (int p = 0; p < owners.length; p++) {
      owners[p] = EngineTesting.nodes(s).get(s.owner(p)).address();
    }
    return owners;
  }

  static Map<String, Integer> counts(String[] owners) {
    Map<String, Integer> c = new HashMap<>();
    for (String o : owners) {
      c.merge(o, 1, Integer::sum);
    }
    return c;
  }

  static int[] ones(int n) {
    int[] w = new int[n];
    java.util.Arrays.fill(w, 1);
    return w;
  }

  private static Maglev<Integer> maglev(List<Endpoint> endpoints) {
    Maglev<Integer> m = new Maglev<>();
    m.update(endpoints, endpoints::indexOf);
    return m;
  }

  @Test
  void hundredBackendsShareTheTableWithinOnePercentOfTheMean() {
    String[] owners = owners(maglev(Fixtures.endpoints(ones(100))));
    Map<String, Integer> counts = counts(owners);
    double mean = 65537 / 100.0;
    int max = Collections.max(counts.values());

    assertThat(owners).hasSize(65537);
    assertThat(counts).hasSize(100);
    assertThat(max / mean).as("largest share over the mean").isLessThanOrEqualTo(1.01);
  }

  @Test
  void removingOneOfHundredMovesAtMostTwoPercentOfKeys() {
    List<Endpoint> all = Fixtures.endpoints(ones(100));
    Maglev<Integer> m = maglev(all);
    String[] before = owners(m);
    Endpoint gone = all.get(37);
    List<Endpoint> rest = new ArrayList<>(all);
    rest.remove(gone);
    m.update(rest, e -> -1);
    String[] after = owners(m);

    int moved = 0;
    int fromOthers = 0;
    for (int p = 0; p < before.length; p++) {
      if (!before[p].equals(after[p])) {
        moved++;
        fromOthers += before[p].equals(gone.address()) ? 0 : 1;
      }
    }
    assertThat(moved / (double) before.length).as("share of entries that moved")
        .isGreaterThanOrEqualTo(0.0099).isLessThanOrEqualTo(0.02);
    assertThat(fromOthers).as("entries moved between remaining backends").isPositive();
  }

  @Test
  void weightsSetTheSharesWithinOnePercent() {
    int[] weights = {1, 2, 3, 4, 1, 2, 3, 4, 5, 10};
    List<Endpoint> es = Fixtures.endpoints(weights);
    Map<String, Integer> counts = counts(owners(maglev(es)));
    int total = 0;
    for (int w : weights) {
      total += w;
    }
    for (int i = 0; i < weights.length; i++) {
      double target = 65537.0 * weights[i] / total;
      assertThat(counts.get(es.get(i).address()) / target).as("share of weight %d", weights[i])
          .isBetween(0.99, 1.01);
    }
  }

  @Test
  void theTableDoesNotDependOnTheEndpointsOrder() {
    List<Endpoint> es = Fixtures.endpoints(3, 1, 4, 1, 5, 9, 2, 6);
    List<Endpoint> shuffled = new ArrayList<>(es);
    Collections.shuffle(shuffled, new java.util.Random(5));

    assertThat(owners(maglev(shuffled))).containsExactly(owners(maglev(es)));
  }

  @Test
  void nameLabelNamesTheBackendInsteadOfItsAddress() {
    HashConfig named = HashConfig.builder().nameLabel("name").build();
    List<Endpoint> a = List.of(Endpoint.parse("10.0.0.1:80;name=x"),
        Endpoint.parse("10.0.0.2:80;name=y"));
    List<Endpoint> b = List.of(Endpoint.parse("10.9.9.9:81;name=x"),
        Endpoint.parse("10.9.9.8:81;name=y"));
    Maglev<Integer> ma = new Maglev<>(BalancerConfig.defaults(), named);
    Maglev<Integer> mb = new Maglev<>(BalancerConfig.defaults(), named);
    ma.update(a, a::indexOf);
    mb.update(b, b::indexOf);

    for (int k = 0; k < 1000; k++) {
      assertThat(mb.pick("key-" + k).value()).isEqualTo(ma.pick("key-" + k).value());
    }
  }

  @Test
  void moreEndpointsThanTableEntriesAreRejectedAndTheSetKept() {
    Maglev<Integer> m = new Maglev<>(BalancerConfig.defaults(),
        HashConfig.builder().tableSize(7).build());
    m.update(Fixtures.endpoints(1, 1), e -> 0);

    assertThatThrownBy(() -> m.update(Fixtures.endpoints(ones(8)), e -> 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("endpoints: 8 (expected: at most the Maglev tableSize 7, better 100 times"
            + " fewer)");
    assertThat(m.nodes()).hasSize(2);
  }
}

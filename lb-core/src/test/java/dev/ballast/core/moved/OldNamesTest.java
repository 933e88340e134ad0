package dev.ballast.core.moved;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Code written against the names lb-core's types had in the previous version still compiles and
 * runs: the deprecated aliases of the types moved so that lb-core's packages form no cycle.
 */
@SuppressWarnings("removal")
class OldNamesTest {

  @Test
  void theOldChildBalancerNameStillMakesAndUsesAChild() {
    dev.ballast.core.ChildBalancer<String> child = dev.ballast.core.composite.ChildBalancer
        .create(Algorithm.ROUND_ROBIN, BalancerConfig.defaults());
    child.update(List.of(Endpoint.parse("10.0.0.1:80")), e -> "a");
    Node<String> picked = child.pick();
    assertThat(picked.value()).isEqualTo("a");
    picked.complete(1_000, true);
    assertThat(dev.ballast.core.composite.ChildBalancer.of(child)).isSameAs(child);
  }

  @Test
  void theOldOptionNamesAreTheSameOptions() {
    assertThat(dev.ballast.core.config.CoreOptions.BALANCER)
        .isSameAs(dev.ballast.core.policy.CoreOptions.BALANCER);
    assertThat(dev.ballast.core.config.CoreOptions.BALANCER.decode(Map.of("maxEffort", 2))
        .maxEffort()).isEqualTo(2);
    assertThat(dev.ballast.core.config.CoreOptions.LOCALITY)
        .isSameAs(dev.ballast.core.policy.CoreOptions.LOCALITY);
    assertThat(dev.ballast.core.config.LoadOptions.WEIGHTED_ROUND_ROBIN)
        .isSameAs(dev.ballast.core.load.LoadOptions.WEIGHTED_ROUND_ROBIN);
  }

  @Test
  void theOldAlgorithmClassNamesMakeTheMovedBalancers() {
    BalancerConfig config = BalancerConfig.defaults();
    HashConfig hash = HashConfig.defaults();
    List<Balancer<String>> old = List.of(new dev.ballast.core.RoundRobin<>(config),
        new dev.ballast.core.WeightedRandom<>(config),
        new dev.ballast.core.SmoothWeightedRoundRobin<>(config),
        new dev.ballast.core.Vnswrr<>(config), new dev.ballast.core.LeastLoaded<>(config),
        new dev.ballast.core.P2cPeakEwma<>(config), new dev.ballast.core.P2cUtilization<>(config),
        new dev.ballast.core.WeightedRoundRobin<>(config), new dev.ballast.core.Aperture<>(config),
        new dev.ballast.core.RingHash<>(config, hash), new dev.ballast.core.Ketama<>(config, hash),
        new dev.ballast.core.Maglev<>(config, hash));
    List<Class<?>> moved = List.of(dev.ballast.core.roundrobin.RoundRobin.class,
        dev.ballast.core.roundrobin.WeightedRandom.class,
        dev.ballast.core.roundrobin.SmoothWeightedRoundRobin.class,
        dev.ballast.core.roundrobin.Vnswrr.class, dev.ballast.core.loadaware.LeastLoaded.class,
        dev.ballast.core.loadaware.P2cPeakEwma.class,
        dev.ballast.core.loadaware.P2cUtilization.class,
        dev.ballast.core.loadaware.WeightedRoundRobin.class,
        dev.ballast.core.aperture.Aperture.class, dev.ballast.core.hash.RingHash.class,
        dev.ballast.core.hash.Ketama.class, dev.ballast.core.hash.Maglev.class);
    for (int i = 0; i < old.size(); i++) {
      Balancer<String> b = old.get(i);
      assertThat(b).isInstanceOf(moved.get(i));
      b.update(List.of(Endpoint.parse("10.0.0.1:80"), Endpoint.parse("10.0.0.2:80")),
          Endpoint::address);
      Node<String> picked = b.pick();
      assertThat(picked.value()).as(b.name()).startsWith("10.0.0.");
      picked.complete(1_000, true);
    }
    assertThat(dev.ballast.core.P2cPeakEwma.NAME).isEqualTo("p2c_peak_ewma");
    assertThat(dev.ballast.core.Aperture.MIN_APERTURE).isEqualTo(12);
  }

  @Test
  void balancersMadeByNameAreStillInstancesOfTheOldClassNames() {
    BalancerConfig config = BalancerConfig.defaults();
    dev.ballast.core.Aperture<String> aperture =
        (dev.ballast.core.Aperture<String>) Algorithm.APERTURE.<String>create(config);
    aperture.setCoordinate(0, 1);
    assertThat(Algorithm.P2C_PEAK_EWMA.create(config))
        .isInstanceOf(dev.ballast.core.P2cPeakEwma.class)
        .isInstanceOf(dev.ballast.core.loadaware.P2cPeakEwma.class);
    assertThat(Algorithm.WEIGHTED_ROUND_ROBIN.create(config))
        .isInstanceOf(dev.ballast.core.WeightedRoundRobin.class);
    assertThat(Algorithm.RING_HASH.create(config)).isInstanceOf(dev.ballast.core.RingHash.class);
  }
}

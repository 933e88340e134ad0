package dev.ballast.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.Distributor;
import dev.ballast.core.engine.DistributorBalancer;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PolicyRegistryTest {

  /** A policy of the test's own: always the node at {@code index} (mod n), then the next. */
  static final class Fixed implements BalancingPolicy<Values> {
    private final String name;

    Fixed(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public List<String> aliases() {
      return List.of(name + "_alias");
    }

    @Override
    public OptionSet<Values, Values> options() {
      return OptionSet.ofValues(name, v -> { }, List.of(
          Values.option("index", ValueType.INT, 0, "1", "x")));
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      int index = config.get("index", 0);
      return new DistributorBalancer<>(name, common, new Distributor.Factory() {
        @Override
        public <U> Distributor<U> over(List<Node<U>> nodes, int[] weights, BalancerConfig c) {
          AtomicInteger next = new AtomicInteger(index);
          return () -> nodes.get(next.getAndIncrement() % nodes.size());
        }
      });
    }
  }

  @Test
  void aClientsOptionGivenAmongAPolicysOwnIsToldWhereItGoes() {
    Fixed fixed = new Fixed("fixed_own");
    String why = " unknown fixed_own option, but a client's (expected: among the client's"
        + " options, not under policy)";
    assertThatThrownBy(() -> ConfiguredPolicy.forClient(fixed, Map.of("slowStart.window", "10s"),
        null, null))
        .isInstanceOf(OptionException.class)
        .hasMessage("policy.slowStart.window:" + why);
    // nested, as Spring binds a map; another set's option; a dashed form
    assertThatThrownBy(() -> ConfiguredPolicy.forClient(fixed,
        Map.of("slowStart", Map.of("window", "10s")), null, null))
        .hasMessage("policy.slowStart:" + why);
    assertThatThrownBy(() -> ConfiguredPolicy.forClient(fixed, Map.of("min-ring-size", "64"),
        null, null))
        .hasMessage("policy.min-ring-size:" + why);
    // a misspelling of its own is still named with the nearest it takes
    assertThatThrownBy(() -> ConfiguredPolicy.forClient(fixed, Map.of("indx", "1"), null, null))
        .isInstanceOf(OptionException.class)
        .hasMessageStartingWith("policy.indx: unknown fixed_own option, did you mean index?");
  }

  @Test
  void everyAlgorithmIsRegisteredUnderItsNameWithItsTraits() {
    PolicyRegistry r = PolicyRegistry.defaultRegistry();
    for (Algorithm a : Algorithm.values()) {
      BalancingPolicy<?> p = r.get(a.id().replace('_', '-').toUpperCase());
      assertThat(p.name()).isEqualTo(a.id());
      assertThat(p.traits().contains(Trait.PICKS_BY_KEY)).isEqualTo(a.picksByKey());
      assertThat(p.traits().contains(Trait.READS_REPORTS)).isEqualTo(a.readsReports());
      ChildBalancer<String> b = ConfiguredPolicy.decode(p, null)
          .newBalancer(BalancerConfig.defaults());
      assertThat(b.name()).isEqualTo(a.id());
    }
    assertThat(r.get("p2c-peak-ewma").traits())
        .containsExactlyInAnyOrder(Trait.COUNTS_CALLS, Trait.TIMES_CALLS);
    assertThat(r.get("vnswrr").traits()).isEmpty();
    assertThat(r.get(PolicyRegistry.DEFAULT_POLICY).name()).isEqualTo("p2c_peak_ewma");
  }

  @Test
  void aClientTakesTheOptionsOfLbCoresAlgorithmsAtItsOwnLevelAndAUsersAsThePolicys() {
    // by their option sets, not their names: a front end puts policy.* where this says
    for (Algorithm a : Algorithm.values()) {
      assertThat(ConfiguredPolicy.optionsAtClientLevel(PolicyRegistry.defaultRegistry()
          .get(a.id()))).as(a.id()).isTrue();
    }
    assertThat(ConfiguredPolicy.optionsAtClientLevel(new Fixed("fixed"))).isFalse();
  }

  @Test
  void anUnknownNameIsRefusedNamingTheNearest() {
    assertThatThrownBy(() -> ConfiguredPolicy.of("vnswr", null))
        .isInstanceOf(OptionException.class)
        .hasMessageStartingWith("balancer: \"vnswr\" (did you mean vnswrr? expected: one of ")
        // a team's policy missing at run time reads as a typo: where one comes from
        .hasMessageEndingWith("; a team's policy registers from its jar's META-INF/services/"
            + "dev.ballast.core.policy.BalancingPolicy entry, or by PolicyRegistry.register)");
  }

  @Test
  void aUsersPolicyRegistersByNameAndAliasAndDecodesItsOptions() {
    PolicyRegistry r = new PolicyRegistry().register(new Fixed("fixed"));
    assertThat(r.get("FIXED-alias").name()).isEqualTo("fixed");
    assertThatThrownBy(() -> r.register(new Fixed("fixed")))
        .hasMessageContaining("policy name: fixed of ")
        .hasMessageContaining("fixed of " + Fixed.class.getName() + " has it");
    assertThat(r.names()).containsExactly("fixed");

    BalancingPolicy<?> p = r.get("fixed");
    assertThatThrownBy(() -> ConfiguredPolicy.decode(p, Map.of("indx", 1)))
        .isInstanceOf(OptionException.class)
        .hasMessageContaining("did you mean index?");
    ConfiguredPolicy<?> c = ConfiguredPolicy.decode(p, Map.of("index", "1"));
    assertThat(c.options()).isEqualTo(Map.of("index", 1.0));
  }

  @Test
  void aPolicyThatMakesNothingIsNamed() {
    BalancingPolicy<Values> noBalancer = new BalancingPolicy<>() {
      @Override
      public String name() {
        return "no_balancer";
      }

      @Override
      public OptionSet<Values, ?> options() {
        return NO_OPTIONS;
      }

      @Override
      public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
        return null;
      }
    };
    assertThatThrownBy(() -> ConfiguredPolicy.decode(noBalancer, null)
        .newBalancer(BalancerConfig.defaults()))
        .hasMessage("policy no_balancer: newBalancer returned null (expected: a balancer, e.g."
            + " a DistributorBalancer)");
    ChildBalancer<String> noDistributor = new DistributorBalancer<>("no_distributor",
        BalancerConfig.defaults(), new Distributor.Factory() {
          @Override
          public <U> Distributor<U> over(List<Node<U>> nodes, int[] w, BalancerConfig c) {
            return null;
          }
        });
    assertThatThrownBy(() -> noDistributor.update(Endpoint.parseList("10.0.0.1:80"),
        Endpoint::address))
        .hasMessage("policy no_distributor: its Distributor.Factory returned null (expected: a"
            + " distributor over the nodes)");
  }

  @Test
  void aDistributorBalancerKeepsNodesAndSkipsClosedOnes() {
    BalancerConfig config = BalancerConfig.builder().random(new SplittableRandom(7))
        .panicPick(false).build();
    ChildBalancer<String> b = ConfiguredPolicy.decode(new Fixed("fixed"), Map.of("index", 1))
        .newBalancer(config);
    b.update(Endpoint.parseList("10.0.0.1:80,10.0.0.2:80,10.0.0.3:80"), Endpoint::address);
    Node<String> second = b.nodes().get(1);
    assertThat(b.pick()).isSameAs(second);
    second.complete(1_000, true);
    Map<String, Integer> picked = new TreeMap<>();
    second.setAvailability(Availability.CLOSED);
    for (int i = 0; i < 6; i++) {
      Node<String> n = b.pickUncounted();
      picked.merge(n.value(), 1, Integer::sum);
    }
    assertThat(picked).containsOnlyKeys("10.0.0.1:80", "10.0.0.3:80");

    // a kept address keeps its node across an update
    b.update(Endpoint.parseList("10.0.0.2:80;weight=5,10.0.0.4:80"), Endpoint::address);
    assertThat(b.nodes().get(0)).isSameAs(second);
    assertThat(second.weight()).isEqualTo(5);

    for (Node<String> n : b.nodes()) {
      n.setAvailability(Availability.CLOSED);
    }
    assertThatThrownBy(b::pick).isInstanceOf(NoAvailableEndpointException.class);
  }
}

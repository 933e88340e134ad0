package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.hash.Maglev;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.policy.Trait;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The client builder makes every balancer through the registry's policy: the client-level
 * options reach it whichever comes first, a factory set by hand is kept, and a team's policy
 * whose options are lb-core's hash options takes them at the client's level, as ketama does.
 */
class BalancerChoiceTest {

  private static final List<Endpoint> ENDPOINTS = List.of(Endpoint.of("10.0.0.1", 1),
      Endpoint.of("10.0.0.2", 2), Endpoint.of("10.0.0.3", 3), Endpoint.of("10.0.0.4", 4));

  /** The endpoint each of 200 keys reaches. */
  private static List<Endpoint> routes(Balancer<String> b) {
    b.update(ENDPOINTS, Endpoint::toString);
    List<Endpoint> out = new ArrayList<>();
    for (int k = 0; k < 200; k++) {
      HashBalancer<String> h = (HashBalancer<String>) b;
      out.add(h.pickUncounted(h.hash("user-" + k)).endpoint());
    }
    return out;
  }

  @Test
  void theHashOptionsReachTheBalancerWhicheverComesFirst() {
    BallastClient.Builder<?, ?> before = BallastClient.framed();
    ClientOptions.CLIENT.apply(before, Map.of("tableSize", 101));
    before.balancer("maglev");
    BallastClient.Builder<?, ?> after = BallastClient.framed();
    ClientOptions.CLIENT.apply(after, Map.of("balancer", "maglev", "tableSize", 101));

    List<Endpoint> small = routes(new Maglev<>(BalancerConfig.defaults(),
        HashConfig.builder().tableSize(101).build()));
    assertThat(small).isNotEqualTo(routes(new Maglev<>(BalancerConfig.defaults(),
        HashConfig.defaults()))); // the table's size shows in the routes
    assertThat(routes(before.balancerFactory.create(BalancerConfig.defaults()))).isEqualTo(small);
    assertThat(routes(after.balancerFactory.create(BalancerConfig.defaults()))).isEqualTo(small);
  }

  @Test
  void aFactorySetByHandIsKeptWhenClientOptionsChange() {
    BalancerFactory mine = new BalancerFactory() {
      @Override
      public <T> Balancer<T> create(BalancerConfig config) {
        return new Maglev<>(config, HashConfig.defaults());
      }
    };
    BallastClient.Builder<?, ?> b = BallastClient.framed().balancer("ketama").balancer(mine);
    ClientOptions.CLIENT.apply(b, Map.of("minRingSize", 8, "blackoutPeriod", "1s"));
    assertThat(b.balancerFactory).isSameAs(mine);
  }

  /** A team's key-picking policy that takes lb-core's hash options: a Maglev under its name. */
  static final class TeamHash implements BalancingPolicy<HashConfig> {
    static final AtomicReference<HashConfig> made = new AtomicReference<>();

    @Override
    public String name() {
      return "team_hash";
    }

    @Override
    public Set<Trait> traits() {
      return Set.of(Trait.PICKS_BY_KEY);
    }

    @Override
    public OptionSet<HashConfig, ?> options() {
      return CoreOptions.HASH;
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, HashConfig config) {
      made.set(config);
      return new Maglev<>(common, config);
    }
  }

  @Test
  void aTeamsPolicyWithLbCoresHashOptionsTakesThemAtTheClientsLevel() {
    if (PolicyRegistry.defaultRegistry().find("team_hash").isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new TeamHash());
    }
    BallastClient.Builder<?, ?> b = BallastClient.framed();
    ClientOptions.CLIENT.apply(b, Map.of("balancer", "team_hash", "tableSize", 101));
    b.balancerFactory.create(BalancerConfig.defaults());
    assertThat(TeamHash.made.get().tableSize()).isEqualTo(101);

    assertThatThrownBy(() -> BallastClient.framed().balancer("team_hash",
        Map.of("tableSize", 101)))
        .isInstanceOf(OptionException.class)
        .hasMessageStartingWith("policy.tableSize: unknown team_hash option under policy"
            + " (expected: its options at the client's level");
    assertThatThrownBy(() -> BallastClient.framed().balancer("vnswrr", Map.of("percent", 5)))
        .isInstanceOf(OptionException.class)
        .hasMessage("policy.percent: unknown vnswrr option under policy (expected: none, since"
            + " it takes no options of its own)");
  }
}

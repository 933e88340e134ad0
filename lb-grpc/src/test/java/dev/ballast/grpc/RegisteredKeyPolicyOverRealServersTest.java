package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.Values;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.policy.Trait;
import dev.ballast.core.testing.KeyedModuloPolicy;
import io.grpc.CallOptions;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A policy registered the way a team's is, declaring {@link Trait#PICKS_BY_KEY}, gets each call's
 * key through gRPC as lb-core's key-picking algorithms do: the front end asks the policy for its
 * traits, not the algorithm enum. Real channels against real servers on 127.0.0.1.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RegisteredKeyPolicyOverRealServersTest {

  private static final String NAME = "test_keyed_table";

  /** The test's own policy: Maglev's table under a name of its own, picking by key. */
  static final class KeyedTable implements BalancingPolicy<Values> {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public Set<Trait> traits() {
      return Set.of(Trait.PICKS_BY_KEY);
    }

    @Override
    public OptionSet<Values, ?> options() {
      return NO_OPTIONS;
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      return ConfiguredPolicy.of("maglev", Map.of()).newBalancer(common);
    }
  }

  static {
    PolicyRegistry.defaultRegistry().register(new KeyedTable());
    LoadBalancerRegistry.getDefaultRegistry().register(new PolicyLoadBalancerProvider(NAME));
    PolicyRegistry.defaultRegistry().register(new KeyedModuloPolicy());
    LoadBalancerRegistry.getDefaultRegistry().register(
        new PolicyLoadBalancerProvider(KeyedModuloPolicy.NAME));
  }

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private ManagedChannel channel(TestServers s, String policy) throws Exception {
    ManagedChannel ch = s.channel(policy, "{}");
    closeables.add(() -> {
      ch.shutdownNow();
      ch.awaitTermination(10, TimeUnit.SECONDS);
    });
    return ch;
  }

  private static int callWithKey(ManagedChannel ch, String key) {
    return TestServers.call(ch, CallOptions.DEFAULT.withOption(
        HashLoadBalancerProvider.REQUEST_KEY, key));
  }

  @Test
  void aRegisteredPolicyThatPicksByKeySendsEachKeyWhereMaglevDoes() throws Exception {
    TestServers s = TestServers.start(0, 0, 0, 0);
    closeables.add(s);
    ManagedChannel ours = channel(s, NAME);
    ManagedChannel maglev = channel(s, "maglev");

    int[] perServer = new int[4];
    for (int k = 0; k < 100; k++) {
      String key = "tenant-" + k;
      int server = callWithKey(maglev, key);
      assertThat(callWithKey(ours, key)).as("server for %s", key).isEqualTo(server);
      assertThat(callWithKey(ours, key)).as("server for %s again", key).isEqualTo(server);
      perServer[server]++;
    }
    assertThat(perServer).as("keys per server").doesNotContain(0);
  }

  @Test
  void aTeamsKeyedDistributorSendsEachKeyToTheServerItsRuleNames() throws Exception {
    TestServers s = TestServers.start(0, 0, 0, 0);
    closeables.add(s);
    ManagedChannel ch = channel(s, KeyedModuloPolicy.NAME);
    // the target lists the servers in order, and the rule picks among the nodes in that order
    int[] perServer = new int[4];
    for (int k = 0; k < 100; k++) {
      String key = "tenant-" + k;
      int expected = KeyedModuloPolicy.expected(key, 4);
      assertThat(callWithKey(ch, key)).as("server for %s", key).isEqualTo(expected);
      assertThat(callWithKey(ch, key)).as("server for %s again", key).isEqualTo(expected);
      perServer[expected]++;
    }
    assertThat(perServer).as("keys per server").doesNotContain(0);
  }
}

package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.PolicyLoadBalancerProvider;
import dev.ballast.grpc.orca.ReportingServers.Mode;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A policy registered the way a team's is, declaring {@link Trait#READS_REPORTS}, gets its
 * servers' ORCA reports through lb-grpc's {@link PolicyLoadBalancerProvider} as lb-core's
 * report-reading algorithms do through their own providers: the front end asks the policy for its
 * traits. Real servers on 127.0.0.1 report fixed loads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegisteredReportsPolicyTest {

  private static final String NAME = "test_reported_weights";
  // utilizations 0.8, 0.8, 0.4, 0.2 at 100 qps: A58's shares 1 : 1 : 2 : 4
  private static final double[] UTILIZATIONS = {0.8, 0.8, 0.4, 0.2};
  private static final double[] EXPECTED = {0.125, 0.125, 0.25, 0.5};
  private static final int CALLS = 2000;

  /** The test's own policy: weights from reports (lb-core's WRR) under a name of its own. */
  static final class ReportedWeights implements BalancingPolicy<WeightedRoundRobinConfig> {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public Set<Trait> traits() {
      return Set.of(Trait.READS_REPORTS);
    }

    @Override
    public OptionSet<WeightedRoundRobinConfig, ?> options() {
      return LoadOptions.WEIGHTED_ROUND_ROBIN;
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common,
        WeightedRoundRobinConfig config) {
      return ChildBalancer.of(Algorithm.WEIGHTED_ROUND_ROBIN.create(common, HashConfig.defaults(),
          config));
    }
  }

  static {
    PolicyRegistry.defaultRegistry().register(new ReportedWeights());
    LoadBalancerRegistry.getDefaultRegistry().register(new PolicyLoadBalancerProvider(NAME));
  }

  private ReportingServers servers;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (servers != null) {
      servers.close();
    }
  }

  /** Each server's share of {@link #CALLS} calls, once the weights are in force. */
  private double[] shares(String config) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse(
        "{\"loadBalancingConfig\": [{\"" + NAME + "\": " + config + "}]}");
    channel = NettyChannelBuilder.forTarget(servers.target()).usePlaintext()
        .defaultServiceConfig(serviceConfig).build();
    return servers.shares(channel, CALLS, 500_000_000L);
  }

  private static void assertWithinTwoPoints(double[] actual) {
    for (int i = 0; i < EXPECTED.length; i++) {
      assertThat(actual[i]).as("server " + i).isBetween(EXPECTED[i] - 0.02, EXPECTED[i] + 0.02);
    }
  }

  @Test
  void perCallReportsReachARegisteredPolicyThatReadsThem() throws Exception {
    servers = ReportingServers.start(Mode.PER_CALL, UTILIZATIONS);
    assertWithinTwoPoints(shares("{\"blackoutPeriod\": \"0s\", \"weightUpdatePeriod\": \"0.1s\"}"));
  }

  @Test
  void outOfBandReportsReachItWhenItsOwnOptionsAskForThem() throws Exception {
    servers = ReportingServers.start(Mode.OUT_OF_BAND, UTILIZATIONS);
    assertWithinTwoPoints(shares("{\"blackoutPeriod\": \"0s\", \"weightUpdatePeriod\": \"0.1s\","
        + " \"enableOobLoadReport\": true, \"oobReportingPeriod\": \"0.1s\"}"));
  }
}

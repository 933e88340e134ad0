package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.orca.ReportingServers.Mode;
import io.grpc.ManagedChannel;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Over the same real gRPC servers reporting fixed loads through ORCA, Ballast's {@code
 * ballast_weighted_round_robin} and gRPC-java's own {@code weighted_round_robin} (grpc-xds)
 * split calls alike.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WeightedRoundRobinParityTest {

  // utilizations 0.8, 0.8, 0.4, 0.2 at 100 qps: weights 125 : 125 : 250 : 500, shares 1 : 1 : 2 : 4
  private static final double[] UTILIZATIONS = {0.8, 0.8, 0.4, 0.2};
  private static final double[] EXPECTED = {0.125, 0.125, 0.25, 0.5};
  private static final int CALLS = 2000;

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

  private ManagedChannel open(String policy, String config) throws IOException {
    if (channel != null) {
      channel.shutdownNow();
    }
    @SuppressWarnings("unchecked")
    Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse(
        "{\"loadBalancingConfig\": [{\"" + policy + "\": " + config + "}]}");
    channel = NettyChannelBuilder.forTarget(servers.target()).usePlaintext()
        .defaultServiceConfig(serviceConfig).build();
    return channel;
  }

  /**
   * Calls until the weights have been in force for several update periods (0.1 s): at least
   * 1,000 calls and 0.5 s, at most 100,000 calls; then returns each server's share of
   * {@link #CALLS} calls.
   */
  private double[] shares(ManagedChannel ch) {
    return shares(ch, 500_000_000L);
  }

  private double[] shares(ManagedChannel ch, long warmUpNanos) {
    return servers.shares(ch, CALLS, warmUpNanos);
  }

  private static void assertWithinTwoPoints(double[] actual, double[] expected, String what) {
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual[i]).as(what + " server " + i)
          .isBetween(expected[i] - 0.02, expected[i] + 0.02);
    }
  }

  @Test
  void perCallReportsGiveGrpcsSharesWithinTwoPoints() throws Exception {
    servers = ReportingServers.start(Mode.PER_CALL, UTILIZATIONS);
    String config = "{\"blackoutPeriod\": \"0s\", \"weightUpdatePeriod\": \"0.1s\"}";
    double[] ours = shares(open("ballast_weighted_round_robin", config));
    double[] grpcs = shares(open("weighted_round_robin", config));
    assertWithinTwoPoints(ours, grpcs, "ours against gRPC's");
    assertWithinTwoPoints(ours, EXPECTED, "ours against A58's weights");
  }

  @Test
  void outOfBandReportsGiveGrpcsSharesWithinTwoPoints() throws Exception {
    servers = ReportingServers.start(Mode.OUT_OF_BAND, UTILIZATIONS);
    String config = "{\"blackoutPeriod\": \"0s\", \"weightUpdatePeriod\": \"0.1s\","
        + " \"enableOobLoadReport\": true, \"oobReportingPeriod\": \"0.1s\"}";
    double[] ours = shares(open("ballast_weighted_round_robin", config));
    double[] grpcs = shares(open("weighted_round_robin", config));
    assertWithinTwoPoints(ours, grpcs, "ours against gRPC's");
    assertWithinTwoPoints(ours, EXPECTED, "ours against A58's weights");
  }

  /**
   * Envoy's metricNamesForComputingUtilization through the policy's config: servers at the same
   * CPU utilization whose named utilization "queue" is 0.8, 0.8, 0.4, 0.2 share 1 : 1 : 2 : 4
   * with it.
   */
  @Test
  void aNamedUtilizationGivesTheUtilizationWhenConfigured() throws Exception {
    servers = new ReportingServers();
    for (double queue : UTILIZATIONS) {
      io.grpc.services.MetricRecorder recorder = io.grpc.services.MetricRecorder.newInstance();
      recorder.setCpuUtilizationMetric(0.5);
      recorder.setQpsMetric(100);
      recorder.putUtilizationMetric("queue", queue);
      servers.add(b -> b.intercept(
          io.grpc.xds.orca.OrcaMetricReportingServerInterceptor.create(recorder)));
    }
    String config = "{\"blackoutPeriod\": \"0s\", \"weightUpdatePeriod\": \"0.1s\"";
    // without the option the servers' equal CPU gives even shares (ReportedWeightsTest)
    assertWithinTwoPoints(shares(open("ballast_weighted_round_robin", config
        + ", \"metricNamesForComputingUtilization\": [\"utilization.queue\"]}")), EXPECTED,
        "by the named metric");
  }

  @Test
  void withoutReportsItIsRoundRobinAndTheUnimplementedStreamIsNotRetried() throws Exception {
    servers = ReportingServers.start(Mode.NONE, UTILIZATIONS);
    double[] ours = shares(open("ballast_weighted_round_robin",
        "{\"enableOobLoadReport\": true, \"oobReportingPeriod\": \"0.1s\"}"), 1_500_000_000L);
    assertWithinTwoPoints(ours, new double[] {0.25, 0.25, 0.25, 0.25}, "round robin");
    // one ORCA stream per server, answered UNIMPLEMENTED and never tried again over 1.5 s
    assertThat(servers.orcaLookups.get()).isEqualTo(UTILIZATIONS.length);
  }

  @Test
  void p2cUtilizationSendsALoneCallerToTheLargestReportedCapacity() throws Exception {
    servers = ReportingServers.start(Mode.PER_CALL, UTILIZATIONS);
    // its capacities count from the first weight update (1 s by default)
    double[] shares = shares(open("p2c_utilization", "{}"), 1_500_000_000L);
    // one call at a time: no request in flight anywhere, so the larger capacity of the two
    // candidates wins: server 3 (capacity 500 of 1000) whenever drawn, server 2 against 0 and 1
    assertThat(shares[3]).isGreaterThan(0.6);
    assertThat(shares[3]).isGreaterThan(shares[2]);
    assertThat(shares[2]).isGreaterThan(shares[0] + shares[1]);
  }
}

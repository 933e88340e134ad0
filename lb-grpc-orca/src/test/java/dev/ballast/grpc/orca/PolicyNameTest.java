package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.grpc.BallastGrpc;
import io.grpc.ManagedChannel;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A report-driven policy says its own name, not gRPC's, in its meters' {@code policy} tag and in
 * its status: a channel of {@code ballast_weighted_round_robin} is not gRPC's {@code
 * weighted_round_robin} on a dashboard.
 */
class PolicyNameTest {

  @ParameterizedTest
  @ValueSource(strings = {"ballast_weighted_round_robin", "p2c_utilization"})
  void theMetersAndTheStatusCarryTheProvidersName(String policy) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Metrics.addRegistry(registry);
    ManagedChannel channel = null;
    try (ReportingServers servers =
        ReportingServers.start(ReportingServers.Mode.PER_CALL, 0.2, 0.4)) {
      @SuppressWarnings("unchecked")
      Map<String, ?> config = (Map<String, ?>) JsonParser.parse(
          "{\"loadBalancingConfig\": [{\"" + policy + "\": {}}]}");
      channel = NettyChannelBuilder.forTarget(servers.target()).usePlaintext()
          .defaultServiceConfig(config).build();
      for (int i = 0; i < 20; i++) {
        ReportingServers.call(channel);
      }
      String authority = channel.authority();
      List<Meter> meters = registry.getMeters().stream()
          .filter(m -> authority.equals(m.getId().getTag("target"))).toList();
      assertThat(meters).isNotEmpty()
          .allSatisfy(m -> assertThat(m.getId().getTag("policy")).isEqualTo(policy));
      List<BalancerStatus> status = BallastGrpc.status(channel);
      assertThat(status).singleElement()
          .satisfies(s -> assertThat(s.policy()).isEqualTo(policy));
    } finally {
      if (channel != null) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      Metrics.removeRegistry(registry);
    }
  }
}

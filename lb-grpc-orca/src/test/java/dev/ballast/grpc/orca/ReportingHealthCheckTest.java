package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * gRPC's client-side health checking (gRFC A17) in the report-driven policies, as in every other
 * Ballast policy: over real servers serving {@code grpc.health.v1.Health}, a backend that turns
 * NOT_SERVING takes no call.
 */
class ReportingHealthCheckTest {

  private static final String SERVICE = "ballast.test.Echo";

  private final List<HealthStatusManager> health = new ArrayList<>();
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

  @ParameterizedTest
  @ValueSource(strings = {"ballast_weighted_round_robin", "p2c_utilization"})
  void aNotServingBackendGetsNoCalls(String policy) throws Exception {
    servers = new ReportingServers();
    for (int i = 0; i < 3; i++) {
      HealthStatusManager h = new HealthStatusManager();
      h.setStatus(SERVICE, ServingStatus.SERVING);
      health.add(h);
      servers.add(b -> b.addService(h.getHealthService()));
    }
    @SuppressWarnings("unchecked")
    Map<String, ?> config = (Map<String, ?>) JsonParser.parse("{\"loadBalancingConfig\": [{\""
        + policy + "\": {}}], \"healthCheckConfig\": {\"serviceName\": \"" + SERVICE + "\"}}");
    channel = NettyChannelBuilder.forTarget(servers.target()).usePlaintext()
        .defaultServiceConfig(config).build();
    callUntil(i -> allAnswered(), "every backend answers");

    health.get(0).setStatus(SERVICE, ServingStatus.NOT_SERVING);
    callUntil(i -> i != 0, "backend 0 skipped");
    servers.resetCounts();
    for (int i = 0; i < 300; i++) {
      ReportingServers.call(channel);
    }
    int[] counts = servers.callCounts();
    assertThat(counts[0]).as("calls to the NOT_SERVING backend").isZero();
    assertThat(counts[1] + counts[2]).isEqualTo(300);
  }

  private boolean allAnswered() {
    for (int c : servers.callCounts()) {
      if (c == 0) {
        return false;
      }
    }
    return true;
  }

  /** Calls until {@code done} holds for 30 calls in a row; at most 5,000 calls. */
  private void callUntil(java.util.function.IntPredicate done, String what) {
    int run = 0;
    for (int i = 0; i < 5_000 && run < 30; i++) {
      run = done.test(ReportingServers.call(channel)) ? run + 1 : 0;
    }
    assertThat(run).as(what).isEqualTo(30);
  }
}

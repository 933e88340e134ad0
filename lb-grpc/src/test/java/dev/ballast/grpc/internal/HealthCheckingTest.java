package dev.ballast.grpc.internal;

import static dev.ballast.grpc.internal.BalancerLoadBalancerTest.group;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import io.grpc.Attributes;
import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A policy runs behind gRPC-java's health checking only while the channel passes a health-check
 * config, and runs bare (no copy of each pick result) otherwise; a change remakes it.
 */
class HealthCheckingTest {

  private final FakeHelper helper = new FakeHelper();
  private final LoadBalancer lb = HealthChecking.wrap(helper,
      h -> BalancerLoadBalancer.of(h, ConfiguredPolicy.named("round_robin"), "round_robin",
          BalancerConfig.defaults()));

  private Status accept(Attributes attributes) {
    Status[] out = new Status[1];
    helper.syncContext.execute(() -> out[0] = lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(List.of(group(1001), group(1002)))
            .setAttributes(attributes).build()));
    return out[0];
  }

  private void allReady(int from) {
    helper.syncContext.execute(() -> {
      for (FakeHelper.FakeSubchannel sc : helper.subchannels.subList(from,
          helper.subchannels.size())) {
        sc.set(ConnectivityState.READY);
      }
    });
  }

  @Test
  void theWrapperComesAndGoesWithTheHealthCheckConfig() {
    assertThat(HealthChecking.available()).as("grpc-services is on the test class path").isTrue();
    // a config naming no service: gRPC's wrapper is in place but starts no Watch stream
    assertThat(accept(Attributes.newBuilder()
        .set(LoadBalancer.ATTR_HEALTH_CHECKING_CONFIG, Map.of()).build()).isOk()).isTrue();
    allReady(0);
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(helper.picker.getClass().getName()).as("gRPC's health wrapper")
        .startsWith("io.grpc.");

    assertThat(accept(Attributes.EMPTY).isOk()).isTrue();
    assertThat(helper.subchannels).hasSize(4);
    assertThat(helper.subchannels.subList(0, 2)).allSatisfy(sc -> assertThat(sc.shutdown)
        .as("the checked policy's subchannels").isTrue());
    allReady(2);
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(helper.picker.getClass().getName()).as("our own picker")
        .startsWith("dev.ballast.");

    assertThat(accept(Attributes.EMPTY).isOk()).isTrue();
    assertThat(helper.subchannels).as("no change, no remake").hasSize(4);
    helper.syncContext.execute(lb::shutdown);
    assertThat(helper.subchannels).allSatisfy(sc -> assertThat(sc.shutdown).isTrue());
  }
}

package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.testing.LogRecorder;
import io.grpc.LoadBalancerRegistry;
import org.junit.jupiter.api.Test;

/**
 * A provider whose policy is not registered in lb-core is left out by gRPC's registry with
 * gRPC's own words only ({@code isAvailable() returned false}); the provider says why, and what
 * to do, in a WARNING.
 */
class PolicyProviderAvailabilityTest {

  @Test
  void aProviderOfAnUnregisteredPolicySaysWhyItIsNotAvailable() {
    try (LogRecorder log = LogRecorder.on(PolicyLoadBalancerProvider.class.getName())) {
      PolicyLoadBalancerProvider p = new PolicyLoadBalancerProvider("never_registered_policy");
      assertThatThrownBy(() -> new LoadBalancerRegistry().register(p))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(log.lines()).singleElement().satisfies(m -> assertThat(m)
          .startsWith("WARNING gRPC policy never_registered_policy is not available: no"
              + " balancing policy named never_registered_policy is registered in lb-core")
          .contains("PolicyRegistry.defaultRegistry().register(...)"));
    }
  }
}

package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The report-driven policies' config holds gRPC's {@code weighted_round_robin} fields beside
 * lb-core's balancer options: a misspelt field is named with the nearest of the set it belongs
 * to, whichever that is.
 */
class ReportingConfigTest {

  private static String error(String policy, Map<String, ?> json) {
    ConfigOrError c = LoadBalancerRegistry.getDefaultRegistry().getProvider(policy)
        .parseLoadBalancingPolicyConfig(json);
    assertThat(c.getConfig()).as("config for %s", json).isNull();
    return c.getError().getDescription();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ballast_weighted_round_robin", "p2c_utilization"})
  void aMisspeltFieldIsNamedWithTheNearestOfItsOwnSet(String policy) {
    // the policy's own field was offered only the balancer options ("did you mean" nothing)
    assertThat(error(policy, Map.of("blackoutPeriud", "1s")))
        .startsWith(policy + " config: blackoutPeriud: unknown")
        .contains("did you mean blackoutPeriod?");
    assertThat(error(policy, Map.of("decayTme", "1s")))
        .startsWith(policy + " config: decayTme: unknown balancer option")
        .contains("did you mean decayTime?");
  }
}

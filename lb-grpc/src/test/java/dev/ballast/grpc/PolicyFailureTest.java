package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.ThrowingPolicy;
import io.grpc.CallOptions;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A team's policy with a bug (its distributor throws) fails the calls it cannot pick for,
 * naming the policy, over real servers on 127.0.0.1; the exception never reaches the channel,
 * which gRPC would put in panic for good ("Panic! This is a bug!").
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PolicyFailureTest {

  private static final String NAME = ThrowingPolicy.NAME;

  static {
    if (PolicyRegistry.defaultRegistry().find(NAME).isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new ThrowingPolicy());
    }
    LoadBalancerRegistry.getDefaultRegistry().register(new PolicyLoadBalancerProvider(NAME));
  }

  @Test
  void aPolicyThatThrowsFailsTheCallNamingItAndTheChannelLivesOn() throws Exception {
    try (TestServers s = TestServers.start(0, 0)) {
      ManagedChannel ch = s.channel(NAME, "{}");
      try {
        for (int i = 0; i < 4; i++) { // the same answer each time: no panic
          // a wait-for-ready call fails at once too, long before its 20 s deadline
          CallOptions options = i % 2 == 0 ? CallOptions.DEFAULT
              : CallOptions.DEFAULT.withWaitForReady();
          assertThatThrownBy(() -> TestServers.call(ch, options))
              .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription()).startsWith("balancing policy "
                    + NAME + " failed to pick: java.lang.IllegalStateException: a bug in the"
                    + " team's distributor");
              });
        }
      } finally {
        ch.shutdownNow();
        ch.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}

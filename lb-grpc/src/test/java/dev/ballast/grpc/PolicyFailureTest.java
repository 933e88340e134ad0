package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.LogRecorder;
import dev.ballast.core.testing.ThrowingPolicy;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A team's policy with a bug (its distributor throws) fails the calls it cannot pick for,
 * naming the policy, over real servers on 127.0.0.1; the exception never reaches the channel,
 * which gRPC would put in panic for good ("Panic! This is a bug!"). The channel logs its first
 * such failure and counts them all.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PolicyFailureTest {

  private static final String NAME = ThrowingPolicy.NAME;

  static {
    if (PolicyRegistry.defaultRegistry().find(NAME).isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new ThrowingPolicy());
    }
    LoadBalancerRegistry.getDefaultRegistry().register(new PolicyLoadBalancerProvider(NAME));
    LoadBalancerRegistry.getDefaultRegistry().register(new ThrowingGrpcPolicy());
  }

  @Test
  void aPolicyThatThrowsFailsTheCallNamingItAndTheChannelLivesOn() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try (TestServers s = TestServers.start(0, 0);
        LogRecorder log = LogRecorder.on(StateChangeLog.LOGGER)) {
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
        // the first logged, every one counted
        assertThat(log.lines()).singleElement().asString().startsWith("WARNING channel "
            + ch.authority() + ": balancing policy " + NAME + " failed to pick: ");
        assertThat(meters.find("ballast.grpc.picks.failed").tag("target", ch.authority())
            .functionCounter()).extracting(FunctionCounter::count).isEqualTo(4.0);
      } finally {
        ch.shutdownNow();
        ch.awaitTermination(10, TimeUnit.SECONDS);
      }
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  @Test
  void aGrpcChildWhosePickerThrowsUnderLocalityIsNamed() throws Exception {
    try (TestServers s = TestServers.start(0);
        LogRecorder log = LogRecorder.on(StateChangeLog.LOGGER)) {
      ManagedChannel ch = s.channel("locality",
          "{'childPolicy': [{'" + ThrowingGrpcPolicy.NAME + "': {}}]}");
      try {
        assertThatThrownBy(() -> TestServers.call(ch, CallOptions.DEFAULT))
            .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).isEqualTo("balancing policy "
                  + ThrowingGrpcPolicy.NAME + " (the child of locality) failed to pick: "
                  + "java.lang.IllegalStateException: a bug in the team's gRPC picker");
            });
        assertThat(log.lines()).singleElement().asString().startsWith("WARNING channel "
            + ch.authority() + ": balancing policy " + ThrowingGrpcPolicy.NAME
            + " (the child of locality) failed to pick: ");
      } finally {
        ch.shutdownNow();
        ch.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  /** A team's gRPC policy, READY at once, whose picker throws. */
  static final class ThrowingGrpcPolicy extends LoadBalancerProvider {
    static final String NAME = "throwing_grpc_child";

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 5;
    }

    @Override
    public String getPolicyName() {
      return NAME;
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new LoadBalancer() {
        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
          helper.updateBalancingState(ConnectivityState.READY, new SubchannelPicker() {
            @Override
            public PickResult pickSubchannel(PickSubchannelArgs args) {
              throw new IllegalStateException("a bug in the team's gRPC picker");
            }
          });
          return Status.OK;
        }

        @Override
        public void handleNameResolutionError(Status error) {}

        @Override
        public void shutdown() {}
      };
    }
  }
}

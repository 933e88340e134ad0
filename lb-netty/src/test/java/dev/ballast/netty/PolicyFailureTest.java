package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.Distributor;
import dev.ballast.core.engine.DistributorBalancer;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.LogRecorder;
import dev.ballast.netty.framed.FramedServer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A team's policy with a bug (its distributor throws) fails the calls it cannot pick for as
 * when nothing can be picked, naming the client, the policy and the cause, over real servers on
 * 127.0.0.1; the client logs it once, not once per call.
 */
class PolicyFailureTest {

  private static final String NAME = "test_throwing";

  /** Every pick throws. */
  static final class Throwing implements BalancingPolicy<Values> {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public OptionSet<Values, ?> options() {
      return NO_OPTIONS;
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      return new DistributorBalancer<>(NAME, common, new Distributor.Factory() {
        @Override
        public <U> Distributor<U> over(List<Node<U>> nodes, int[] weights, BalancerConfig c) {
          return () -> {
            throw new IllegalStateException("a bug in the team's distributor");
          };
        }
      });
    }
  }

  @Test
  void aPolicyThatThrowsFailsTheCallNamingItAndIsLoggedOnce() throws Exception {
    if (PolicyRegistry.defaultRegistry().find(NAME).isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new Throwing());
    }
    try (FramedServer a = FramedServer.start(FramedServer.echo());
        FramedServer b = FramedServer.start(FramedServer.echo());
        LogRecorder log = LogRecorder.on(StateChangeLog.LOGGER);
        BallastClient<byte[], byte[]> client = BallastClient.framed().name("buggy")
            .endpoints(a.endpoint() + "," + b.endpoint()).balancer(NAME).build()) {
      for (int i = 0; i < 3; i++) {
        assertThat(client.call(new byte[] {1})).failsWithin(10, TimeUnit.SECONDS)
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .havingCause().isInstanceOf(NoAvailableEndpointException.class)
            .withMessageStartingWith("client buggy: balancing policy " + NAME + " failed to"
                + " pick: java.lang.IllegalStateException: a bug in the team's distributor")
            .withCauseInstanceOf(IllegalStateException.class);
      }
      assertThat(log.lines()).filteredOn(l -> l.contains("failed to pick")).singleElement()
          .satisfies(l -> assertThat(l).startsWith("WARNING client buggy: balancing policy "
              + NAME));
    }
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.LogRecorder;
import dev.ballast.core.testing.ThrowingPolicy;
import dev.ballast.netty.framed.FramedServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A team's policy with a bug (its distributor throws) fails the calls it cannot pick for as
 * when nothing can be picked, naming the client, the policy and the cause, over real servers on
 * 127.0.0.1; the client logs it once, not once per call.
 */
class PolicyFailureTest {

  private static final String NAME = ThrowingPolicy.NAME;

  @Test
  void aPolicyThatThrowsFailsTheCallNamingItAndIsLoggedOnce() throws Exception {
    if (PolicyRegistry.defaultRegistry().find(NAME).isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new ThrowingPolicy());
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

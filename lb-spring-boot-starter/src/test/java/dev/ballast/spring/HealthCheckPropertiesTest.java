package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code health-check.*} properties turn on a client's active checks (real framed backends that
 * answer pings): the backend that says it is not serving stops taking calls, and takes them again
 * once it serves. Bounded loops of calls wait for each change, never a fixed time.
 */
class HealthCheckPropertiesTest {

  private final FramedServer a = FramedServer.start(reply("a"));
  private final FramedServer b = FramedServer.start(reply("b"));

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class))
      .withPropertyValues(
          "ballast.clients.checked.endpoints[0]=127.0.0.1:" + a.port(),
          "ballast.clients.checked.endpoints[1]=127.0.0.1:" + b.port(),
          "ballast.clients.checked.balancer=round-robin",
          "ballast.clients.checked.outlier-detection.enabled=false",
          "ballast.clients.checked.health-check.enabled=true",
          "ballast.clients.checked.health-check.interval=50ms",
          "ballast.clients.checked.health-check.initial-jitter=0s");

  private static FramedServer.Handler reply(String name) {
    return req -> CompletableFuture.completedFuture(name.getBytes(StandardCharsets.UTF_8));
  }

  @AfterEach
  void stop() {
    a.close();
    b.close();
  }

  private static String call(BallastClient<byte[], byte[]> c) throws Exception {
    return new String(c.call(new byte[] {1}).get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
  }

  /** Calls until 20 in a row answer {@code only} (or, null, until both answered); bounded. */
  private static void callUntil(BallastClient<byte[], byte[]> c, String only) throws Exception {
    int run = 0;
    boolean sawA = false;
    boolean sawB = false;
    for (int i = 0; i < 20_000; i++) {
      String r = call(c);
      sawA |= r.equals("a");
      sawB |= r.equals("b");
      run = only != null && r.equals(only) ? run + 1 : 0;
      if (only == null ? sawA && sawB : run == 20) {
        return;
      }
    }
    throw new AssertionError("calls never settled on " + (only == null ? "both" : only));
  }

  @Test
  void aBackendThatIsNotServingTakesNoCallsUntilItServesAgain() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed();
      BallastClient<byte[], byte[]> c = ctx.getBean(BallastClients.class).framed("checked");
      callUntil(c, null);
      a.setServing(false);
      callUntil(c, "b");
      long before = a.requests();
      for (int i = 0; i < 20; i++) {
        assertThat(call(c)).isEqualTo("b");
      }
      assertThat(a.requests()).isEqualTo(before);
      a.setServing(true);
      callUntil(c, null);
    });
  }
}

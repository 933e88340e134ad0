package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.framed.FramedServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code subset.*} properties make an lb-netty client route by call labels (real backends). */
class NettySubsetPropertiesTest {

  private final FramedServer zoneA = FramedServer.start(reply("a"));
  private final FramedServer zoneB = FramedServer.start(reply("b"));

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class))
      .withPropertyValues(
          "ballast.clients.zoned.endpoints[0]=127.0.0.1:" + zoneA.port() + ";zone=a",
          "ballast.clients.zoned.endpoints[1]=127.0.0.1:" + zoneB.port() + ";zone=b",
          "ballast.clients.zoned.balancer=round-robin",
          "ballast.clients.zoned.subset.selectors[0]=zone");

  private static FramedServer.Handler reply(String name) {
    return req -> CompletableFuture.completedFuture(name.getBytes(StandardCharsets.UTF_8));
  }

  @AfterEach
  void stop() {
    zoneA.close();
    zoneB.close();
  }

  private static String call(BallastClient<byte[], byte[]> c, CallOptions o) throws Exception {
    return new String(c.call(new byte[] {1}, o).get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
  }

  @Test
  void callsGoToTheSubsetTheirLabelsNameAndUnmatchedOnesFail() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed();
      BallastClient<byte[], byte[]> c = ctx.getBean(BallastClients.class).framed("zoned");
      assertThat(c.balancerName()).isEqualTo("label_subset(round_robin)");
      CallOptions b = CallOptions.DEFAULT.withLabels(Map.of("zone", "b"));
      for (int i = 0; i < 10; i++) {
        assertThat(call(c, b)).isEqualTo("b");
      }
      assertThat(zoneA.requests()).isZero();
      assertThat(zoneB.requests()).isEqualTo(10);
      assertThatThrownBy(() -> call(c, CallOptions.DEFAULT.withLabels(Map.of("zone", "c"))))
          .cause().isInstanceOf(NoAvailableEndpointException.class)
          .hasMessageContaining("{zone=c}");
    });
  }

  @Test
  void defaultSubsetFallbackComesFromProperties() {
    runner.withPropertyValues("ballast.clients.zoned.subset.fallback-policy=default-subset",
            "ballast.clients.zoned.subset.default-subset.zone=a")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          BallastClient<byte[], byte[]> c = ctx.getBean(BallastClients.class).framed("zoned");
          for (int i = 0; i < 6; i++) {
            assertThat(call(c, CallOptions.DEFAULT)).isEqualTo("a");
          }
          assertThat(zoneA.requests()).isEqualTo(6);
          assertThat(zoneB.requests()).isZero();
        });
  }
}

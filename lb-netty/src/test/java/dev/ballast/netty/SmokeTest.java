package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.framed.FramedServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void echoThroughTheStack() throws Exception {
    try (FramedServer a = FramedServer.start(FramedServer.echo());
        FramedServer b = FramedServer.start(FramedServer.delayed(Duration.ofMillis(2),
            FramedServer.echo()));
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(a.endpoint(), b.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .timeout(Duration.ofSeconds(2))
            .build()) {
      for (int i = 0; i < 10; i++) {
        byte[] r = client.call(("hi" + i).getBytes(StandardCharsets.UTF_8))
            .get(5, TimeUnit.SECONDS);
        assertThat(new String(r, StandardCharsets.UTF_8)).isEqualTo("hi" + i);
      }
      assertThat(a.requests() + b.requests()).isEqualTo(10);
      assertThat(a.requests()).isEqualTo(5);
    }
  }
}

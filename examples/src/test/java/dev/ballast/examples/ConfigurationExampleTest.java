package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.config.OptionException;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The configuration page's example builds, and the model's errors read as the page quotes. */
class ConfigurationExampleTest {

  @Test
  void aClientFromAMapBuilds() {
    try (BallastClient<HttpRequest, HttpResponse> client =
        ConfigurationExample.fromMap("127.0.0.1:8443,127.0.0.2:8443")) {
      assertThat(client).isNotNull();
    }
  }

  @Test
  void aBareNumberAndATypoAreRefusedNamingTheOption() {
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.http2(),
        Map.of("timeout", "2")))
        .isInstanceOf(OptionException.class)
        .hasMessage("timeout: 2 (expected: a duration such as 10s, 250ms or 1.5m)");
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.http2(),
        Map.of("pool", Map.of("maxConections", 8))))
        .isInstanceOf(OptionException.class)
        .hasMessageStartingWith("pool.maxConections: unknown client option, did you mean"
            + " pool.maxConnections?");
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A client builder's options by name: every one reaches the builder, every bad one is named. */
class ClientOptionsTest {

  @Test
  void everyOptionReachesTheBuilderAndRefusesItsBadExample() {
    for (Option<BallastClient.Builder<?, ?>, BallastClient.Builder<?, ?>, ?> o
        : ClientOptions.CLIENT.options()) {
      if (o.example() == null) {
        continue; // a file (TLS): covered by the starter's TLS test
      }
      BallastClient.Builder<?, ?> b = BallastClient.framed();
      ClientOptions.CLIENT.apply(b, Map.of(o.name(), o.example()));
      assertThat((Object) o.get(b)).as(o.name()).isEqualTo(o.type().parse(o.example()));
      assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.framed(),
          Map.of(o.name(), o.badExample())))
          .as(o.name()).isInstanceOf(OptionException.class)
          .satisfies(e -> assertThat(((OptionException) e).option())
              .matches(n -> n.equals(o.name()) || n.startsWith(o.name() + "."),
                  "is " + o.name() + " or a key inside it"));
    }
  }

  @Test
  void groupsNestOrDot() {
    BallastClient.Builder<?, ?> b = BallastClient.http2();
    ClientOptions.CLIENT.apply(b, Map.of("balancer", "maglev", "tableSize", 101,
        "hedging", Map.of("percentile", "0.95"), "pool.max-connections", "2",
        "retry-backoff.base", "10ms"));
    assertThat(b.policyName).isEqualTo("maglev");
    assertThat(b.hashConfig.tableSize()).isEqualTo(101);
    assertThat(b.hedging.percentile()).isEqualTo(0.95);
    assertThat(b.pool.maxConnections()).isEqualTo(2);
    Duration base = b.values("retryBackoff").get("base", null);
    assertThat(base).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void optionsCheckedTogetherAreNamed() {
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.framed(),
        Map.of("hedging", Map.of("delay", "5ms", "percentile", 0.9))))
        .hasMessage("hedging.percentile: 0.9 (expected: a delay or a percentile, not both)");
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.framed(),
        Map.of("pool", Map.of("minConnections", 4, "maxConnections", 2))))
        .hasMessageStartingWith("pool.");
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.framed(),
        Map.of("pool", Map.of("maxConections", 4))))
        .hasMessageStartingWith("pool.maxConections: unknown client option, did you mean"
            + " pool.maxConnections? (expected: one of pool.connectTimeout,");
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.framed(),
        Map.of("tls", Map.of("enabled", true, "trustCertificates", "/no/such.pem"))))
        .hasMessage("tls.trustCertificates: /no/such.pem (expected: a readable PEM file)");
  }
}

package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * {@code ${...}} placeholders under {@code ballast.} resolve as they do in Spring's own
 * properties: from other properties, from environment variables, and to their defaults.
 */
class PlaceholderPropertiesTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class));

  @Test
  void placeholdersTakeTheirDefaults() {
    runner.withPropertyValues(
            "ballast.clients.orders.endpoints[0]=127.0.0.1:${A1_PORT:18181}",
            "ballast.clients.orders.endpoints[1]=${A2_HOST:127.0.0.2}:${A2_PORT:18182};zone=b",
            "ballast.clients.orders.timeout=${CALL_TIMEOUT:2s}")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          ClientSettings orders = ctx.getBean(BallastSettings.class).get("orders");
          assertThat(orders.endpoints()).containsExactly(
              Endpoint.of("127.0.0.1", 18181, 1, Map.of()),
              Endpoint.of("127.0.0.2", 18182, 1, Map.of("zone", "b")));
          assertThat(BallastAutoConfigurationTest.option(orders, "timeout"))
              .isEqualTo(Duration.ofSeconds(2));
        });
  }

  @Test
  void placeholdersResolveFromPropertiesAndTheEnvironment() {
    runner.withPropertyValues(
            "orders.port=19001",
            "ballast.defaults.timeout=${DEFAULT_TIMEOUT}",
            "ballast.clients.orders.endpoints=127.0.0.1:${orders.port},127.0.0.1:${B_PORT}",
            "ballast.clients.orders.balancer=${BALANCER:least-loaded}")
        .withInitializer(ctx -> ctx.getEnvironment().getPropertySources().addLast(
            new SystemEnvironmentPropertySource("systemEnvironment",
                Map.of("B_PORT", "19002", "DEFAULT_TIMEOUT", "750ms"))))
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          ClientSettings orders = ctx.getBean(BallastSettings.class).get("orders");
          assertThat(orders.endpoints()).containsExactly(
              Endpoint.of("127.0.0.1", 19001, 1, Map.of()),
              Endpoint.of("127.0.0.1", 19002, 1, Map.of()));
          assertThat(BallastAutoConfigurationTest.option(orders, "timeout"))
              .isEqualTo(Duration.ofMillis(750));
          assertThat(orders.algorithm()).isEqualTo(Algorithm.LEAST_LOADED);
        });
  }

  @Test
  void anUnresolvablePlaceholderIsRefusedNamingTheProperty() {
    runner.withPropertyValues("ballast.clients.orders.endpoints=127.0.0.1:${NO_SUCH_PORT}")
        .run(ctx -> assertThat(ctx).getFailure().rootCause()
            .hasMessageContaining("Could not resolve placeholder 'NO_SUCH_PORT'"));
    // Spring Boot gRPC's own keys are read as Spring reads them: its unresolved text kept
    runner.withPropertyValues("ballast.clients.orders.endpoints=127.0.0.1:9000",
            "spring.grpc.client.channel.other.target=${NO_SUCH_TARGET}")
        .run(ctx -> assertThat(ctx).hasNotFailed());
    // a free-text option would take the text itself
    runner.withPropertyValues("ballast.clients.orders.endpoints=127.0.0.1:9000",
            "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.subset.default-subset.zone=${NO_SUCH_ZONE}")
        .run(ctx -> assertThat(ctx).getFailure().rootCause()
            .hasMessageContaining("Could not resolve placeholder 'NO_SUCH_ZONE'"));
  }
}

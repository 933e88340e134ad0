package dev.ballast.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.spring.BallastAutoConfiguration;
import dev.ballast.spring.BallastGrpcAutoConfiguration;
import dev.ballast.spring.BallastNettyAutoConfiguration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The endpoint and the health indicators exist with Actuator and its health support, each
 * under its own switch, and neither without Actuator.
 */
class ActuatorConditionsTest {

  // Port 1 on loopback: clients open connections on demand, so nothing needs to listen.
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class, BallastGrpcAutoConfiguration.class,
          BallastActuatorAutoConfiguration.class))
      .withPropertyValues("ballast.clients.act-orders.endpoints=127.0.0.1:1;zone=a",
          "management.endpoints.web.exposure.include=ballast");

  @Test
  void withActuatorTheEndpointAndAnIndicatorPerClient() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(BallastEndpoint.class)
          .hasBean("ballastHealthContributor");
      @SuppressWarnings("unchecked")
      Map<String, BalancerStatus> clients = (Map<String, BalancerStatus>)
          ctx.getBean(BallastEndpoint.class).ballast().get("clients");
      assertThat(clients).containsOnlyKeys("act-orders");
      assertThat(clients.get("act-orders").endpoints()).hasSize(1);
      CompositeHealthContributor health =
          ctx.getBean("ballastHealthContributor", CompositeHealthContributor.class);
      assertThat(((HealthIndicator) health.getContributor("act-orders")).health().getStatus()
          .getCode()).isEqualTo("UP");
    });
  }

  @Test
  void withoutActuatorNeither() {
    runner.withClassLoader(new FilteredClassLoader(Endpoint.class)).run(ctx ->
        assertThat(ctx).hasNotFailed().doesNotHaveBean(BallastEndpoint.class)
            .doesNotHaveBean("ballastHealthContributor"));
  }

  @Test
  void eachHasItsSwitch() {
    runner.withPropertyValues("management.endpoint.ballast.access=NONE",
        "management.health.ballast.enabled=false").run(ctx ->
        assertThat(ctx).hasNotFailed().doesNotHaveBean(BallastEndpoint.class)
            .doesNotHaveBean("ballastHealthContributor"));
  }
}

package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * Spring's HTTP clients go through Ballast by default, and not with one property or without
 * spring-web ({@code SpringHttpClientsTest} shows what they do).
 */
class HttpClientsConditionsTest {

  private static final String[] CUSTOMIZERS = {"ballastRestClientCustomizer",
      "ballastRestTemplateCustomizer", "ballastWebClientCustomizer"};

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class, BallastHttpClientsAutoConfiguration.class))
      .withPropertyValues("ballast.clients.cond-users.endpoints=127.0.0.1:1",
          "ballast.clients.cond-users.protocol=http");

  @Test
  void onByDefault() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed();
      for (String name : CUSTOMIZERS) {
        assertThat(ctx).hasBean(name);
      }
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"ballast.http-client.enabled=false",
      "ballast.http-clients.enabled=false"})
  void offWithOneProperty(String property) {
    runner.withPropertyValues(property).run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(BallastClients.class);
      for (String name : CUSTOMIZERS) {
        assertThat(ctx).doesNotHaveBean(name);
      }
    });
  }

  @Test
  void offWithoutSpringWeb() {
    runner.withClassLoader(new FilteredClassLoader(ClientHttpRequestFactory.class))
        .run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(BallastClients.class);
          for (String name : CUSTOMIZERS) {
            assertThat(ctx).doesNotHaveBean(name);
          }
        });
  }
}

package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.BallastException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/** Spring's HTTP clients go through Ballast by default, and not with one property or library. */
class HttpClientsConditionsTest {

  private static final String[] CUSTOMIZERS = {"ballastRestClientCustomizer",
      "ballastRestTemplateCustomizer", "ballastWebClientCustomizer"};

  // Port 1 on loopback: nothing listens, so a call through Ballast fails to connect at once.
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class, BallastHttpClientsAutoConfiguration.class,
          RestClientAutoConfiguration.class, WebClientAutoConfiguration.class))
      .withPropertyValues("ballast.clients.cond-users.endpoints=127.0.0.1:1",
          "ballast.clients.cond-users.protocol=http");

  @Test
  void onByDefaultAndBootsRestClientBuilderGoesThroughTheClient() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed();
      for (String name : CUSTOMIZERS) {
        assertThat(ctx).hasBean(name);
      }
      RestClient client = ctx.getBean(RestClient.Builder.class).build();
      assertThatThrownBy(() -> client.get().uri("http://cond-users/").retrieve().toBodilessEntity())
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("through Ballast client cond-users")
          .hasCauseInstanceOf(BallastException.class);
    });
  }

  @Test
  void offWithOneProperty() {
    runner.withPropertyValues("ballast.http-clients.enabled=false").run(ctx -> {
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

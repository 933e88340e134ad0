package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class BallastAutoConfigurationTest {

  /** Returns a client option as lb-netty's builder holds it once the settings are applied. */
  static Object option(ClientSettings s, String name) {
    BallastClient.Builder<?, ?> b = BallastClient.framed();
    ClientOptions.CLIENT.apply(b, s.clientOptions());
    return ClientOptions.CLIENT.find(name).get(b);
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class));

  @Test
  void noClientsConfiguredGivesEmptySettings() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(BallastSettings.class);
      assertThat(ctx.getBean(BallastSettings.class).names()).isEmpty();
    });
  }

  @Test
  void propertiesBecomeCheckedSettingsWithDocumentedDefaults() {
    runner.withPropertyValues(
            "ballast.clients.orders.endpoints[0]=10.0.0.1:7000;weight=3;zone=a",
            "ballast.clients.orders.endpoints[1]=[::1]:7001;zone=b",
            "ballast.clients.orders.balancer=vnswrr",
            "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.subset.selectors[1]=zone, version",
            "ballast.clients.orders.subset.fallback-policy=DEFAULT_SUBSET",
            "ballast.clients.orders.subset.default-subset.zone=a",
            "ballast.clients.orders.pool.max-connections=2",
            "ballast.clients.orders.pool.acquire-timeout=250ms",
            "ballast.clients.orders.retry-budget.percent=5",
            "ballast.clients.orders.late-answer-wait=0s",
            "ballast.clients.orders.max-frame-size=64KB",
            "ballast.clients.orders.outlier-detection.success-rate-threshold=0",
            "ballast.clients.orders.outlier-detection.max-ejection-time=30s",
            "ballast.clients.users.endpoints=10.0.0.9:80")
        .run(ctx -> {
          BallastSettings settings = ctx.getBean(BallastSettings.class);
          assertThat(settings.names()).containsExactly("orders", "users");

          ClientSettings orders = settings.get("orders");
          assertThat(orders.endpoints()).containsExactly(
              Endpoint.of("10.0.0.1", 7000, 3, Map.of("zone", "a")),
              Endpoint.of("::1", 7001, 1, Map.of("zone", "b")));
          assertThat(orders.algorithm()).isEqualTo(Algorithm.VNSWRR);
          assertThat(orders.subset().selectors())
              .containsExactly(List.of("zone"), List.of("version", "zone"));
          assertThat(orders.subset().fallbackPolicy())
              .isEqualTo(FallbackPolicy.DEFAULT_SUBSET);
          assertThat(orders.subset().defaultSubset()).containsExactly(Map.entry("zone", "a"));
          assertThat(orders.subset().headerPrefix()).isEqualTo("x-lb-");
          assertThat(orders.subset().allowRedundantKeys()).isFalse();
          assertThat(option(orders, "pool.maxConnections")).isEqualTo(2);
          assertThat(option(orders, "pool.acquireTimeout")).isEqualTo(Duration.ofMillis(250));
          assertThat(option(orders, "retryBudget.percent")).isEqualTo(5.0);
          assertThat(option(orders, "lateAnswerWait")).isEqualTo(Duration.ZERO);
          assertThat(option(orders, "maxFrameSize")).isEqualTo(64 * 1024);
          assertThat(option(orders, "outlierDetection.successRateThreshold")).isEqualTo(0.0);
          assertThat(option(orders, "outlierDetection.maxEjectionTime"))
              .isEqualTo(Duration.ofSeconds(30));

          // Everything not given takes the documented default.
          ClientSettings users = settings.get("users");
          assertThat(users.endpoints()).containsExactly(Endpoint.of("10.0.0.9", 80));
          assertThat(users.algorithm()).isEqualTo(Algorithm.P2C_PEAK_EWMA);
          assertThat(users.balancerConfig().decayTime()).isEqualTo(Duration.ofSeconds(10));
          assertThat(users.balancerConfig().defaultRtt()).isEqualTo(Duration.ofMillis(30));
          assertThat(users.balancerConfig().maxEffort()).isEqualTo(5);
          assertThat(users.balancerConfig().panicPick()).isFalse();
          assertThat(users.protocol()).isEqualTo(ClientSettings.Protocol.FRAMED);
          assertThat(users.subset().enabled()).isFalse();
          assertThat(users.subset().fallbackPolicy())
              .isEqualTo(FallbackPolicy.NO_FALLBACK);
          // lb-netty's options not given hold the builder's own defaults
          BallastClient.Builder<?, ?> fresh = BallastClient.framed();
          for (var o : ClientOptions.CLIENT.options()) {
            if (o.name().equals("endpoints")) {
              continue;
            }
            assertThat((Object) option(users, o.name())).as(o.name()).isEqualTo(o.get(fresh));
          }
          assertThat(option(users, "timeout")).isEqualTo(Duration.ofSeconds(5));
          assertThat(option(users, "maxFrameSize")).isEqualTo(16 << 20);
        });
  }

  @Test
  void clientsInheritBallastDefaultsAndOverrideThem() {
    runner.withPropertyValues(
            "ballast.defaults.balancer=least-loaded",
            "ballast.defaults.timeout=3s",
            "ballast.defaults.pool.max-connections=4",
            "ballast.clients.a.endpoints=127.0.0.1:1",
            "ballast.clients.b.endpoints=127.0.0.1:2",
            "ballast.clients.b.balancer=round-robin",
            "ballast.clients.b.pool.max-connections=1",
            "ballast.defaults.subset.selectors[0]=zone",
            "ballast.defaults.subset.selectors[1]=version",
            "ballast.defaults.subset.default-subset.version=v1",
            "ballast.clients.b.subset.selectors[0]=rack",
            "ballast.clients.b.subset.default-subset.zone=z1")
        .run(ctx -> {
          BallastSettings settings = ctx.getBean(BallastSettings.class);
          assertThat(settings.get("a").algorithm()).isEqualTo(Algorithm.LEAST_LOADED);
          assertThat(option(settings.get("a"), "timeout")).isEqualTo(Duration.ofSeconds(3));
          assertThat(option(settings.get("a"), "pool.maxConnections")).isEqualTo(4);
          assertThat(settings.get("b").algorithm()).isEqualTo(Algorithm.ROUND_ROBIN);
          assertThat(option(settings.get("b"), "timeout")).isEqualTo(Duration.ofSeconds(3));
          assertThat(option(settings.get("b"), "pool.maxConnections")).isEqualTo(1);
          // Lists are replaced as a whole, maps merged key by key.
          assertThat(settings.get("a").subset().selectors())
              .containsExactly(List.of("zone"), List.of("version"));
          assertThat(settings.get("b").subset().selectors()).containsExactly(List.of("rack"));
          assertThat(settings.get("a").subset().defaultSubset())
              .isEqualTo(Map.of("version", "v1"));
          assertThat(settings.get("b").subset().defaultSubset())
              .isEqualTo(Map.of("version", "v1", "zone", "z1"));
        });
  }

  @Test
  void commaSeparatedEndpointListBindsToo() {
    runner.withPropertyValues("ballast.clients.orders.endpoints=127.0.0.1:1;weight=2,127.0.0.1:2")
        .run(ctx -> assertThat(ctx.getBean(BallastSettings.class).get("orders").endpoints())
            .extracting(Endpoint::weight).containsExactly(2, 1));
  }

  @Test
  void dashedAndDottedClientNamesBind() {
    runner.withPropertyValues("ballast.clients.order-svc.endpoints=127.0.0.1:1",
            "ballast.clients.order-svc.balancer=vnswrr",
            "ballast.clients[orders.eu].endpoints=127.0.0.1:2",
            "ballast.clients[orders.eu].balancer=swrr")
        .run(ctx -> {
          BallastSettings settings = ctx.getBean(BallastSettings.class);
          assertThat(settings.get("order-svc").algorithm()).isEqualTo(Algorithm.VNSWRR);
          assertThat(settings.get("orders.eu").algorithm()).isEqualTo(Algorithm.SWRR);
          assertThat(settings.get("orders.eu").endpoints())
              .containsExactly(Endpoint.of("127.0.0.1", 2));
        });
  }

  @Test
  void userSettingsBeanWins() {
    runner.withUserConfiguration(UserSettings.class)
        .withPropertyValues("ballast.clients.orders.endpoints=127.0.0.1:1")
        .run(ctx -> {
          assertThat(ctx).hasSingleBean(BallastSettings.class);
          assertThat(ctx.getBean(BallastSettings.class)).isSameAs(UserSettings.SETTINGS);
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class UserSettings {
    static final BallastSettings SETTINGS = new BallastSettings(List.of());

    @Bean
    BallastSettings mySettings() {
      return SETTINGS;
    }
  }
}

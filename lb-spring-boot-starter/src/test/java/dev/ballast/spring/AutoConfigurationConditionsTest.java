package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.grpc.EndpointRegistry;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.error.ClientClosedException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Each auto-configured bean is there exactly under its conditions; user beans win. */
class AutoConfigurationConditionsTest {

  private static final String METRICS_CUSTOMIZER = "ballastMeterRegistryCustomizer";

  // Port 1 on loopback: clients open connections on demand, so nothing needs to listen.
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class, BallastGrpcAutoConfiguration.class))
      .withPropertyValues("ballast.clients.cond-orders.endpoints=127.0.0.1:1;zone=a",
          "ballast.clients.cond-users.endpoints=127.0.0.1:2",
          "ballast.clients.cond-users.protocol=http");

  @Test
  void everythingPresentWithAllLibrariesButNoMeterRegistry() {
    runner.run(ctx -> {
      assertThat(ctx).hasNotFailed()
          .hasSingleBean(BallastSettings.class)
          .hasSingleBean(BallastClients.class)
          .hasSingleBean(EndpointRegistry.class)
          .hasSingleBean(BallastGrpcEndpoints.class)
          .doesNotHaveBean(METRICS_CUSTOMIZER);
      BallastClients clients = ctx.getBean(BallastClients.class);
      assertThat(clients.names()).containsExactly("cond-orders", "cond-users");
      assertThat(clients.framed("cond-orders").endpoints())
          .containsExactly(Endpoint.parse("127.0.0.1:1;zone=a"));
      assertThat(clients.framed("cond-orders").balancerName()).isEqualTo("p2c_peak_ewma");
      assertThat(clients.http("cond-users").endpoints())
          .containsExactly(Endpoint.parse("127.0.0.1:2"));
      assertThatThrownBy(() -> clients.http("cond-orders"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("ballast.clients.cond-orders.protocol=http");
      assertThatThrownBy(() -> clients.get("nope"))
          .hasMessageContaining("client: nope (expected: one of [cond-orders, cond-users]");
      // The gRPC resolver's registry got the same endpoints.
      assertThat(EndpointRegistry.global().get("cond-orders"))
          .contains(List.of(Endpoint.parse("127.0.0.1:1;zone=a")));
      assertThat(ctx.getBean(EndpointRegistry.class)).isSameAs(EndpointRegistry.global());
    });
  }

  @Test
  void meterRegistryBeanBindsMetrics() {
    runner.withUserConfiguration(MeterRegistryConfig.class).run(ctx -> {
      assertThat(ctx).hasNotFailed().hasBean(METRICS_CUSTOMIZER)
          .hasSingleBean(BallastClients.class);
    });
  }

  @Test
  void springBootsOwnMeterRegistryIsFoundWhateverTheOrderOfAutoConfigurations() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BallastGrpcAutoConfiguration.class,
            BallastNettyAutoConfiguration.class, BallastAutoConfiguration.class,
            org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class,
            org.springframework.boot.micrometer.metrics.autoconfigure
                .CompositeMeterRegistryAutoConfiguration.class,
            org.springframework.boot.micrometer.metrics.autoconfigure.export.simple
                .SimpleMetricsExportAutoConfiguration.class))
        .withPropertyValues("ballast.clients.cond-orders.endpoints=127.0.0.1:1")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(MeterRegistry.class)
              .hasBean(METRICS_CUSTOMIZER);
          // The client registered its meters in Boot's registry.
          assertThat(ctx.getBean(MeterRegistry.class).find("ballast.client.calls")
              .tag("client", "cond-orders").timers()).isNotEmpty();
        });
  }

  @Test
  void metricsCanBeTurnedOff() {
    runner.withUserConfiguration(MeterRegistryConfig.class)
        .withPropertyValues("ballast.metrics.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(METRICS_CUSTOMIZER)
            .hasSingleBean(BallastClients.class));
  }

  @Test
  void withoutMicrometerNoMetricsBindingEvenWithARegistryBean() {
    runner.withUserConfiguration(MeterRegistryConfig.class)
        .withClassLoader(new FilteredClassLoader("io.micrometer"))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(METRICS_CUSTOMIZER)
            .hasSingleBean(BallastClients.class));
  }

  @Test
  void withoutLbNettyNoClients() {
    runner.withClassLoader(new FilteredClassLoader(BallastClient.class))
        .withUserConfiguration(MeterRegistryConfig.class)
        .run(ctx -> assertThat(ctx).hasNotFailed()
            .hasSingleBean(BallastSettings.class)
            .doesNotHaveBean(BallastClients.class)
            .doesNotHaveBean(METRICS_CUSTOMIZER)
            .hasSingleBean(BallastGrpcEndpoints.class));
  }

  @Test
  void withoutLbGrpcNoResolverFeed() {
    runner.withClassLoader(new FilteredClassLoader("dev.ballast.grpc"))
        .run(ctx -> assertThat(ctx).hasNotFailed()
            .doesNotHaveBean(EndpointRegistry.class)
            .doesNotHaveBean(BallastGrpcEndpoints.class)
            .hasSingleBean(BallastClients.class));
  }

  @Test
  void withoutGrpcItselfNoResolverFeed() {
    runner.withClassLoader(new FilteredClassLoader("io.grpc"))
        .run(ctx -> assertThat(ctx).hasNotFailed()
            .doesNotHaveBean(BallastGrpcEndpoints.class)
            .hasSingleBean(BallastClients.class));
  }

  @Test
  void springGrpcChannelsGetTheServiceConfigOnlyWithSpringBootsGrpcClient() {
    runner.run(ctx -> assertThat(ctx).hasSingleBean(
        dev.ballast.spring.internal.BallastChannelServiceConfig.class));
    runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.grpc"))
        .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(BallastGrpcEndpoints.class)
            .doesNotHaveBean(dev.ballast.spring.internal.BallastChannelServiceConfig.class));
  }

  @Test
  void serviceConfigGoesOnlyToBallastChannelsWithoutAPolicyOfTheirOwn() {
    runner.withPropertyValues("ballast.clients.cond-users.balancer=vnswrr",
            "spring.grpc.client.channel.a.target=ballast://cond-users",
            "spring.grpc.client.channel.b.target=ballast://cond-users",
            "spring.grpc.client.channel.b.default.load-balancing-policy=round_robin",
            "spring.grpc.client.channel.c.target=static://127.0.0.1:1",
            "spring.grpc.client.channel.d.target=ballast://unknown")
        .run(ctx -> {
          var customizer = ctx.getBean(dev.ballast.spring.internal.BallastChannelServiceConfig.class);
          Map<String, Object> a = new java.util.HashMap<>();
          customizer.customize("a", a);
          assertThat(a).isEqualTo(Map.of("loadBalancingConfig",
              List.of(Map.of("vnswrr", Map.of()))));
          for (String channel : List.of("b", "c", "d")) {
            Map<String, Object> config = new java.util.HashMap<>();
            customizer.customize(channel, config);
            assertThat(config).as("channel %s", channel).isEmpty();
          }
          // A channel made straight from the target, without a channel entry, is served too.
          Map<String, Object> direct = new java.util.HashMap<>();
          customizer.customize("ballast://cond-users", direct);
          assertThat(direct).isEqualTo(a);
          // A service config that already balances is left alone.
          Map<String, Object> own = new java.util.HashMap<>(Map.of("loadBalancingConfig",
              List.of(Map.of("pick_first", Map.of()))));
          customizer.customize("a", own);
          assertThat(own.get("loadBalancingConfig")).isEqualTo(
              List.of(Map.of("pick_first", Map.of())));
        });
  }

  @Test
  void grpcFeedCanBeTurnedOff() {
    runner.withPropertyValues("ballast.grpc.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(BallastGrpcEndpoints.class));
  }

  @Test
  void withOnlyLbCoreJustSettings() {
    runner.withClassLoader(new FilteredClassLoader("dev.ballast.netty", "dev.ballast.grpc",
            "io.micrometer", "io.grpc"))
        .run(ctx -> assertThat(ctx).hasNotFailed()
            .hasSingleBean(BallastSettings.class)
            .doesNotHaveBean(BallastClients.class)
            .doesNotHaveBean(BallastGrpcEndpoints.class));
  }

  @Test
  void userBeansWin() {
    runner.withUserConfiguration(UserBeans.class).run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(ctx.getBean(BallastClients.class)).isSameAs(ctx.getBean("myClients"));
      assertThat(ctx.getBean(EndpointRegistry.class)).isSameAs(UserBeans.REGISTRY);
      // The feed publishes into the user's registry, not the global one.
      assertThat(UserBeans.REGISTRY.get("cond-users"))
          .contains(List.of(Endpoint.parse("127.0.0.1:2")));
    });
    runner.withUserConfiguration(UserFeed.class).run(ctx -> assertThat(ctx).hasNotFailed()
        .getBean(BallastGrpcEndpoints.class).isSameAs(ctx.getBean("myFeed")));
  }

  @Test
  void publishedEndpointsAreWithdrawnWhenTheContextCloses() {
    runner.withUserConfiguration(UserBeans.class).run(ctx ->
        assertThat(UserBeans.REGISTRY.get("cond-users")).isPresent());
    assertThat(UserBeans.REGISTRY.get("cond-users")).isEmpty();
    // a list someone else published meanwhile outlives the context
    runner.withUserConfiguration(UserBeans.class).run(ctx ->
        UserBeans.REGISTRY.publish("cond-users", "127.0.0.1:9"));
    assertThat(UserBeans.REGISTRY.get("cond-users"))
        .contains(List.of(Endpoint.parse("127.0.0.1:9")));
  }

  @Test
  void customizersSeeEveryClientBuilderInOrder() {
    runner.withUserConfiguration(Customizers.class).run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(ctx.getBean(Customizers.class).seen)
          .containsExactly("cond-orders", "cond-users");
    });
  }

  @Test
  void aGrpcOnlyClientIsPublishedButGetsNoNettyClientNorCustomizer() {
    runner.withUserConfiguration(Customizers.class)
        .withPropertyValues("ballast.clients.cond-grpc.endpoints=127.0.0.1:3",
            "ballast.clients.cond-grpc.protocol=grpc")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx.getBean(BallastClients.class).names())
              .containsExactly("cond-orders", "cond-users");
          assertThat(ctx.getBean(Customizers.class).seen)
              .containsExactly("cond-orders", "cond-users");
          assertThatThrownBy(() -> ctx.getBean(BallastClients.class).get("cond-grpc"))
              .hasMessageContaining("cond-grpc has protocol=grpc: it feeds gRPC channels "
                  + "targeting ballast://cond-grpc");
          assertThat(EndpointRegistry.global().get("cond-grpc"))
              .contains(List.of(Endpoint.parse("127.0.0.1:3")));
        });
  }

  @Test
  void aClientThatSpringGrpcChannelsTargetIsGrpcOnlyUnlessAProtocolIsSet() {
    runner.withPropertyValues("ballast.clients.cond-grpc.endpoints=127.0.0.1:3",
            "spring.grpc.client.channel.x.target=ballast://cond-grpc",
            "spring.grpc.client.channel.y.target=ballast://cond-users")
        .run(ctx -> {
          BallastSettings settings = ctx.getBean(BallastSettings.class);
          assertThat(settings.get("cond-grpc").protocol()).isEqualTo(ClientSettings.Protocol.GRPC);
          // cond-users sets protocol=http; cond-orders no channel targets.
          assertThat(settings.get("cond-users").protocol()).isEqualTo(ClientSettings.Protocol.HTTP);
          assertThat(settings.get("cond-orders").protocol())
              .isEqualTo(ClientSettings.Protocol.FRAMED);
          assertThat(ctx.getBean(BallastClients.class).names())
              .containsExactly("cond-orders", "cond-users");
        });
    // A protocol under ballast.defaults is a choice too.
    runner.withPropertyValues("ballast.clients.cond-grpc.endpoints=127.0.0.1:3",
            "ballast.defaults.protocol=framed",
            "spring.grpc.client.channel.x.target=ballast://cond-grpc")
        .run(ctx -> assertThat(ctx.getBean(BallastSettings.class).get("cond-grpc").protocol())
            .isEqualTo(ClientSettings.Protocol.FRAMED));
  }

  @Test
  void clientsCloseWithTheContext() throws Exception {
    BallastClient<byte[], byte[]>[] orders = new BallastClient[1];
    runner.run(ctx -> orders[0] = ctx.getBean(BallastClients.class).framed("cond-orders"));
    assertThatThrownBy(() -> orders[0].call(new byte[] {1}).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ClientClosedException.class);
  }

  @Test
  @SuppressWarnings("unchecked")
  void serviceConfigCarriesTheBalancerAndItsSettings() {
    runner.withPropertyValues("ballast.clients.cond-orders.decay-time=2s",
            "ballast.clients.cond-orders.default-rtt=5ms",
            "ballast.clients.cond-orders.failure-penalty=3",
            "ballast.clients.cond-users.balancer=vnswrr",
            "ballast.clients.cond-users.slow-start.window=45s",
            "ballast.clients.cond-users.slow-start.aggression=2",
            "ballast.clients.cond-users.slow-start.min-weight-percent=0.5",
            "ballast.clients.cond-aperture.endpoints=127.0.0.1:4",
            "ballast.clients.cond-aperture.balancer=aperture",
            "ballast.clients.cond-aperture.aperture.client-index=3",
            "ballast.clients.cond-aperture.aperture.client-count=10",
            "ballast.clients.cond-swrr.endpoints=127.0.0.1:3;zone=a",
            "ballast.clients.cond-swrr.balancer=swrr",
            "ballast.clients.cond-swrr.max-fails=4",
            "ballast.clients.cond-swrr.subset.selectors=zone",
            "ballast.clients.cond-swrr.subset.fallback-policy=default-subset",
            "ballast.clients.cond-swrr.subset.default-subset.zone=a")
        .run(ctx -> {
          BallastGrpcEndpoints feed = ctx.getBean(BallastGrpcEndpoints.class);
          // the options as given, under the model's names: the policy decodes them itself
          assertThat(feed.serviceConfig("cond-orders")).isEqualTo(Map.of("loadBalancingConfig",
              List.of(Map.of("p2c_peak_ewma", Map.of("decayTime", "2s", "defaultRtt", "5ms",
                  "failurePenalty", "3")))));
          assertThat(feed.serviceConfig("cond-users")).isEqualTo(
              Map.of("loadBalancingConfig", List.of(Map.of("vnswrr", Map.of(
                  "slowStart.window", "45s", "slowStart.aggression", "2",
                  "slowStart.minWeightPercent", "0.5")))));
          assertThat(feed.serviceConfig("cond-aperture")).isEqualTo(
              Map.of("loadBalancingConfig", List.of(Map.of("aperture",
                  Map.of("aperture.clientIndex", "3", "aperture.clientCount", "10")))));
          // gRPC accepts them: the channel's policy parses each of these configs.
          for (String name : List.of("cond-orders", "cond-users", "cond-aperture")) {
            Map<String, ?> policy = (Map<String, ?>) ((List<?>) feed.serviceConfig(name)
                .get("loadBalancingConfig")).get(0);
            String policyName = policy.keySet().iterator().next();
            assertThat(io.grpc.LoadBalancerRegistry.getDefaultRegistry().getProvider(policyName)
                .parseLoadBalancingPolicyConfig((Map<String, ?>) policy.get(policyName))
                .getError()).as(name).isNull();
          }
          assertThat(feed.serviceConfig("cond-swrr")).isEqualTo(Map.of("loadBalancingConfig",
              List.of(Map.of("label_subset", Map.of(
                  "selectors", List.of("zone"),
                  "fallbackPolicy", "default-subset",
                  "defaultSubset", Map.of("zone", "a"),
                  "childPolicy", List.of(Map.of("swrr", Map.of("maxFails", "4"))))))));
          assertThat(feed.target("cond-users")).isEqualTo("ballast://cond-users");
          // gRPC accepts each config (it rejects maps with non-JSON value types).
          for (String name : List.of("cond-orders", "cond-users", "cond-swrr")) {
            io.grpc.ManagedChannel ch = io.grpc.ManagedChannelBuilder.forTarget(feed.target(name))
                .defaultServiceConfig(feed.serviceConfig(name)).usePlaintext().build();
            ch.shutdownNow();
          }
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class MeterRegistryConfig {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class UserBeans {
    static final EndpointRegistry REGISTRY = new EndpointRegistry();

    @Bean
    BallastClients myClients(BallastSettings settings) {
      return BallastClients.create(settings, List.of());
    }

    @Bean
    EndpointRegistry myRegistry() {
      return REGISTRY;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class UserFeed {
    @Bean
    BallastGrpcEndpoints myFeed(BallastSettings settings) {
      return new BallastGrpcEndpoints(settings, new EndpointRegistry());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Customizers {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Bean
    BallastClientCustomizer recordingCustomizer() {
      return (settings, builder) -> seen.add(settings.name());
    }
  }

}

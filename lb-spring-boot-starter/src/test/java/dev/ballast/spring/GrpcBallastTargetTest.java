package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * gRPC channels targeting {@code ballast://orders}, balanced over real gRPC servers on 127.0.0.1
 * whose addresses come only from {@code ballast.clients.orders.endpoints}.
 */
class GrpcBallastTargetTest {

  private static GrpcServers servers;

  @BeforeAll
  static void startServers() throws Exception {
    servers = GrpcServers.start(3);
  }

  @AfterAll
  static void stopServers() throws Exception {
    servers.close();
  }

  private ApplicationContextRunner runner(String... extra) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
            BallastNettyAutoConfiguration.class, BallastGrpcAutoConfiguration.class))
        .withPropertyValues(
            "ballast.clients.orders.endpoints[0]=127.0.0.1:" + servers.port(0) + ";weight=1",
            "ballast.clients.orders.endpoints[1]=127.0.0.1:" + servers.port(1) + ";weight=2",
            "ballast.clients.orders.endpoints[2]=127.0.0.1:" + servers.port(2) + ";weight=3")
        .withPropertyValues(extra);
  }

  @Test
  void vnswrrFromPropertiesSplitsCallsExactlyByWeight() {
    runner("ballast.clients.orders.balancer=vnswrr").run(ctx -> {
      BallastGrpcEndpoints feed = ctx.getBean(BallastGrpcEndpoints.class);
      ManagedChannel channel = ManagedChannelBuilder.forTarget(feed.target("orders"))
          .defaultServiceConfig(feed.serviceConfig("orders"))
          .usePlaintext()
          .build();
      servers.assertExactWeightedSplit(channel);
    });
  }

  @Test
  void p2cPeakEwmaByPolicyNameServesEveryCallFromTheConfiguredServers() {
    runner().run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(BallastGrpcEndpoints.class);
      // What Spring gRPC's default-load-balancing-policy=p2c_peak_ewma does: the policy by name.
      ManagedChannel channel = ManagedChannelBuilder.forTarget("ballast://orders")
          .defaultLoadBalancingPolicy("p2c_peak_ewma")
          .usePlaintext()
          .build();
      servers.assertEveryCallAnswered(channel);
    });
  }

  @Test
  void subsetPropertiesRouteByTheZoneHeader() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
            BallastGrpcAutoConfiguration.class))
        .withPropertyValues(
            "ballast.clients.zoned.endpoints[0]=127.0.0.1:" + servers.port(0) + ";zone=a",
            "ballast.clients.zoned.endpoints[1]=127.0.0.1:" + servers.port(1) + ";zone=b",
            "ballast.clients.zoned.endpoints[2]=127.0.0.1:" + servers.port(2) + ";zone=b",
            "ballast.clients.zoned.balancer=round-robin",
            "ballast.clients.zoned.subset.selectors[0]=zone")
        .run(ctx -> {
          BallastGrpcEndpoints feed = ctx.getBean(BallastGrpcEndpoints.class);
          ManagedChannel channel = ManagedChannelBuilder.forTarget("ballast://zoned")
              .defaultServiceConfig(feed.serviceConfig("zoned"))
              .usePlaintext()
              .build();
          try {
            servers.resetCalls();
            for (int i = 0; i < 100; i++) {
              assertThat(call(channel, "b")).isIn("1", "2");
            }
            assertThat(servers.calls()[0]).isZero();
            assertThat(servers.calls()[1] + servers.calls()[2]).isEqualTo(100);
            for (int i = 0; i < 20; i++) {
              assertThat(call(channel, "a")).isEqualTo("0");
            }
            // No fallback (the default): a zone nobody has fails instead of going anywhere.
            assertThatThrownBy(() -> call(channel, "c"))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                    e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
          } finally {
            GrpcServers.shutdown(channel);
          }
        });
  }

  @Test
  void maglevFromPropertiesSendsEachKeyToOneServer() {
    runner("ballast.clients.orders.balancer=maglev",
        "ballast.clients.orders.request-hash-header=x-user",
        "ballast.clients.orders.load-bound=1.25").run(ctx -> {
          BallastGrpcEndpoints feed = ctx.getBean(BallastGrpcEndpoints.class);
          assertThat(feed.serviceConfig("orders")).isEqualTo(Map.of("loadBalancingConfig",
              List.of(Map.of("maglev", Map.of("requestHashHeader", "x-user",
                  "loadBound", "1.25")))));
          ManagedChannel channel = ManagedChannelBuilder.forTarget(feed.target("orders"))
              .defaultServiceConfig(feed.serviceConfig("orders"))
              .usePlaintext()
              .build();
          try {
            Set<String> servers = new HashSet<>();
            for (int user = 0; user < 30; user++) {
              String first = callAs(channel, "user-" + user);
              servers.add(first);
              for (int again = 0; again < 3; again++) {
                assertThat(callAs(channel, "user-" + user)).as("user-%d", user)
                    .isEqualTo(first);
              }
            }
            assertThat(servers).as("servers the users' keys reach").hasSize(3);
          } finally {
            GrpcServers.shutdown(channel);
          }
        });
  }

  private static String callAs(ManagedChannel channel, String user) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), user);
    return GrpcServers.call(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)));
  }

  private static String call(ManagedChannel channel, String zone) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("x-lb-zone", Metadata.ASCII_STRING_MARSHALLER), zone);
    return GrpcServers.call(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)));
  }

}

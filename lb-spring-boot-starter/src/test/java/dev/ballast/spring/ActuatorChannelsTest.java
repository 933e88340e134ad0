package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.spring.actuate.BallastActuatorAutoConfiguration;
import dev.ballast.spring.actuate.BallastEndpoint;
import io.grpc.ManagedChannel;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code ballast} endpoint lists a real gRPC channel's Ballast policy beside the clients,
 * with its endpoints, and forgets it once the channel shuts down.
 */
class ActuatorChannelsTest {

  @Test
  void aChannelsPolicyIsListedWhileTheChannelLives() throws Exception {
    try (GrpcServers grpc = GrpcServers.start(2)) {
      @SuppressWarnings("unchecked")
      Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse(
          "{\"loadBalancingConfig\": [{\"vnswrr\": {}}]}");
      ManagedChannel channel = NettyChannelBuilder.forTarget("ballast:///127.0.0.1:"
              + grpc.port(0) + ",127.0.0.1:" + grpc.port(1))
          .defaultServiceConfig(serviceConfig).usePlaintext().build();
      String authority = channel.authority();
      try {
        for (int i = 0; i < 4; i++) {
          GrpcServers.call(channel);
        }
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
                BallastNettyAutoConfiguration.class, BallastGrpcAutoConfiguration.class,
                BallastActuatorAutoConfiguration.class))
            .withPropertyValues("ballast.clients.listed.endpoints=127.0.0.1:1",
                "management.endpoints.web.exposure.include=ballast")
            .run(ctx -> {
              @SuppressWarnings("unchecked")
              List<BalancerStatus> channels = (List<BalancerStatus>)
                  ctx.getBean(BallastEndpoint.class).ballast().get("channels");
              assertThat(channels).filteredOn(s -> s.name().equals(authority)).singleElement()
                  .satisfies(s -> {
                    assertThat(s.policy()).isEqualTo("vnswrr");
                    assertThat(s.endpoints()).hasSize(2);
                  });
            });
      } finally {
        GrpcServers.shutdown(channel);
      }
      assertThat(dev.ballast.grpc.BallastGrpc.status(authority)).isEmpty();
    }
  }
}

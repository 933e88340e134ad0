package dev.ballast.spring.actuate;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.netty.BallastClient;
import dev.ballast.spring.BallastAutoConfiguration;
import dev.ballast.spring.BallastClients;
import dev.ballast.spring.BallastGrpcAutoConfiguration;
import dev.ballast.spring.BallastNettyAutoConfiguration;
import dev.ballast.spring.BallastSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * With Spring Boot Actuator on the class path: the {@link BallastEndpoint} ({@code
 * /actuator/ballast}, when exposed) and, with its health support, a {@link
 * ClientHealthIndicator} per lb-netty client under the {@code ballast} health contributor
 * ({@code management.health.ballast.enabled=false} turns them off). Without Actuator neither
 * exists.
 */
@AutoConfiguration(after = {BallastAutoConfiguration.class, BallastNettyAutoConfiguration.class,
    BallastGrpcAutoConfiguration.class})
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(BallastSettings.class)
public class BallastActuatorAutoConfiguration {

  /** Creates the auto-configuration. */
  public BallastActuatorAutoConfiguration() {}

  /** The {@code ballast} endpoint, over the clients there are and the gRPC channels. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public BallastEndpoint ballastEndpoint(ListableBeanFactory beans) {
    ClassLoader loader = BallastActuatorAutoConfiguration.class.getClassLoader();
    Supplier<Map<String, BalancerStatus>> clients =
        ClassUtils.isPresent("dev.ballast.netty.BallastClient", loader)
            ? () -> NettyClients.status(beans.getBeanProvider(BallastClients.class)) : Map::of;
    Supplier<List<BalancerStatus>> channels =
        ClassUtils.isPresent("dev.ballast.grpc.BallastGrpc", loader)
            ? GrpcChannels::status : List::of;
    return new BallastEndpoint(clients, channels);
  }

  /** A health indicator per lb-netty client. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({HealthIndicator.class, BallastClient.class})
  @ConditionalOnBean(BallastClients.class)
  @ConditionalOnEnabledHealthIndicator("ballast")
  public static class ClientHealth {

    /** Creates the configuration. */
    public ClientHealth() {}

    /** The clients' indicators, by client name, under {@code ballast}. */
    @Bean
    @ConditionalOnMissingBean(name = "ballastHealthContributor")
    public CompositeHealthContributor ballastHealthContributor(BallastClients clients) {
      Map<String, HealthIndicator> byName = new LinkedHashMap<>();
      for (String name : clients.names()) {
        byName.put(name, new ClientHealthIndicator(clients.get(name)));
      }
      return CompositeHealthContributor.fromMap(byName);
    }
  }
}

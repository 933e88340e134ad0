package dev.ballast.spring;

import dev.ballast.grpc.EndpointRegistry;
import dev.ballast.spring.internal.BallastChannelServiceConfig;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Serves gRPC targets {@code ballast://<name>} from {@code ballast.clients.<name>.endpoints}
 * when lb-grpc and gRPC are on the class path, so that a channel (including a Spring gRPC one,
 * {@code spring.grpc.client.channels.x.target=ballast://orders}) follows the configured
 * endpoints with no code; with Spring Boot's gRPC client, such a channel that names no policy
 * also gets the client's balancer and subsets. Off with {@code ballast.grpc.enabled=false}.
 */
@AutoConfiguration(after = BallastAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.ballast.grpc.EndpointRegistry", "io.grpc.NameResolverProvider"})
@ConditionalOnBean(BallastSettings.class)
@ConditionalOnProperty(name = "ballast.grpc.enabled", havingValue = "true", matchIfMissing = true)
public class BallastGrpcAutoConfiguration {

  /** Creates the auto-configuration. */
  public BallastGrpcAutoConfiguration() {}

  /**
   * The registry the {@code ballast} name resolver reads: by default the process-wide {@link
   * EndpointRegistry#global()} that the resolver registered through {@code META-INF/services}
   * uses. A user bean of this type replaces it (then register a {@code
   * BallastNameResolverProvider} over it yourself).
   */
  @Bean
  @ConditionalOnMissingBean
  public EndpointRegistry ballastEndpointRegistry() {
    return EndpointRegistry.global();
  }

  /** Publishes every client's endpoints under its name. A user bean replaces it. */
  @Bean
  @ConditionalOnMissingBean
  public BallastGrpcEndpoints ballastGrpcEndpoints(
      BallastSettings settings, EndpointRegistry registry) {
    return new BallastGrpcEndpoints(settings, registry);
  }

  /**
   * With Spring Boot's gRPC client: a channel targeting {@code ballast://<name>} that names no
   * load-balancing policy of its own gets the one of {@code ballast.clients.<name>}.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.grpc.client.autoconfigure"
      + ".GrpcClientDefaultServiceConfigCustomizer")
  public static class SpringGrpcClient {

    /** Creates the configuration. */
    public SpringGrpcClient() {}

    /** The service-config customizer of {@code ballast://} channels. */
    @Bean
    @ConditionalOnMissingBean(BallastChannelServiceConfig.class)
    public BallastChannelServiceConfig ballastChannelServiceConfig(
        BallastGrpcEndpoints endpoints, BallastSettings settings, Environment environment) {
      return new BallastChannelServiceConfig(endpoints, settings, Binder.get(environment));
    }
  }
}

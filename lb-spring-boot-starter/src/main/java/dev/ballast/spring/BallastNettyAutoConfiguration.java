package dev.ballast.spring;

import dev.ballast.netty.BallastClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link BallastClients} registry of lb-netty clients built from {@code ballast.clients.*},
 * when lb-netty is on the class path; and, when Micrometer is there too and the application has
 * a {@link MeterRegistry}, a customizer that reports every client's metrics to it (names under
 * {@code ballast.client.}, tagged with the client name). Off with {@code
 * ballast.metrics.enabled=false}.
 */
@AutoConfiguration(
    after = BallastAutoConfiguration.class,
    afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure"
            + ".CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
            + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(BallastClient.class)
@ConditionalOnBean(BallastSettings.class)
public class BallastNettyAutoConfiguration {

  /** Creates the auto-configuration. */
  public BallastNettyAutoConfiguration() {}

  /**
   * The named clients, customized by every {@link BallastClientCustomizer} bean in order; closed
   * with the context. A user bean of this type replaces it.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public BallastClients ballastClients(
      BallastSettings settings, ObjectProvider<BallastClientCustomizer> customizers) {
    return BallastClients.create(settings, customizers.orderedStream().toList());
  }

  /** Binds client metrics to the application's {@link MeterRegistry}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnBean(MeterRegistry.class)
  @ConditionalOnProperty(name = "ballast.metrics.enabled", havingValue = "true",
      matchIfMissing = true)
  public static class Metrics {

    /** Creates the configuration. */
    public Metrics() {}

    /** The customizer that hands each client builder the registry. */
    @Bean
    @ConditionalOnMissingBean(name = "ballastMeterRegistryCustomizer")
    public BallastClientCustomizer ballastMeterRegistryCustomizer(MeterRegistry registry) {
      return (settings, builder) -> builder.meterRegistry(registry);
    }
  }
}

package dev.ballast.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Binds and checks {@code ballast.*} properties at start-up into a {@link BallastSettings} bean
 * (needs lb-core only). The client registry, the gRPC resolver feed and metrics are configured
 * by the auto-configurations that run after this one when their libraries are present.
 */
@AutoConfiguration
public class BallastAutoConfiguration {

  /** Creates the auto-configuration. */
  public BallastAutoConfiguration() {}

  /**
   * The checked settings of every configured client; a user bean of this type replaces them.
   *
   * @throws InvalidBallastPropertyException naming the first bad property, which stops start-up
   */
  @Bean
  @ConditionalOnMissingBean
  public BallastSettings ballastSettings(Environment environment) {
    return BallastSettings.bind(environment);
  }
}

package dev.ballast.spring;

import dev.ballast.spring.web.BallastClientHttpConnector;
import dev.ballast.spring.web.BallastClientHttpRequestFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.reactive.ClientHttpConnectorBuilder;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.reactive.ClientHttpConnector;

/**
 * Spring's HTTP clients over the named Ballast clients: Spring Boot's {@code RestClient.Builder},
 * {@code RestTemplateBuilder} and {@code WebClient.Builder} get a {@link
 * BallastClientHttpRequestFactory} or a {@link BallastClientHttpConnector}, so that {@code
 * http://<name>/path} goes through the client {@code ballast.clients.<name>} with {@code
 * protocol=http}, and every other URL through the factory or connector Spring Boot configured
 * (its {@code ClientHttpRequestFactory} or {@code ClientHttpConnector} bean, else the one it
 * detects). Nothing changes when no client has {@code protocol=http}. Off with {@code
 * ballast.http-client.enabled=false} (or its former spelling {@code http-clients}).
 */
@AutoConfiguration(
    after = BallastNettyAutoConfiguration.class,
    afterName = {
        "org.springframework.boot.http.client.autoconfigure.imperative"
            + ".ImperativeHttpClientAutoConfiguration",
        "org.springframework.boot.http.client.autoconfigure.reactive"
            + ".ReactiveHttpClientAutoConfiguration"})
@ConditionalOnClass({BallastClientHttpRequestFactory.class, ClientHttpRequestFactory.class})
@ConditionalOnBean(BallastClients.class)
// http-client is the name, http-clients its former spelling: off when either is false
@ConditionalOnProperty(name = {"ballast.http-client.enabled", "ballast.http-clients.enabled"},
    havingValue = "true",
    matchIfMissing = true)
public class BallastHttpClientsAutoConfiguration {

  /** Creates the auto-configuration. */
  public BallastHttpClientsAutoConfiguration() {}

  /** RestClient and RestTemplate, with Spring Boot's {@code spring-boot-restclient}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RestClientCustomizer.class)
  public static class Blocking {

    /** Creates the configuration. */
    public Blocking() {}

    /** Sets every {@code RestClient.Builder}'s request factory to Ballast's, over Boot's. */
    @Bean
    @Order(1000)
    public RestClientCustomizer ballastRestClientCustomizer(
        BallastClients clients, ObjectProvider<ClientHttpRequestFactory> others) {
      ClientHttpRequestFactory factory = factory(clients, others);
      return factory == null ? builder -> { } : builder -> builder.requestFactory(factory);
    }

    /** Sets every {@code RestTemplate}'s request factory to Ballast's, over Boot's. */
    @Bean
    @Order(1000)
    public RestTemplateCustomizer ballastRestTemplateCustomizer(
        BallastClients clients, ObjectProvider<ClientHttpRequestFactory> others) {
      ClientHttpRequestFactory factory = factory(clients, others);
      return factory == null ? template -> { } : template -> template.setRequestFactory(factory);
    }

    private static ClientHttpRequestFactory factory(
        BallastClients clients, ObjectProvider<ClientHttpRequestFactory> others) {
      return clients.httpClients().isEmpty() ? null : new BallastClientHttpRequestFactory(
          clients.httpClients(),
          others.getIfUnique(() -> ClientHttpRequestFactoryBuilder.detect().build()));
    }
  }

  /** WebClient, with Spring Boot's {@code spring-boot-webclient}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({WebClientCustomizer.class, ClientHttpConnector.class})
  public static class Reactive {

    /** Creates the configuration. */
    public Reactive() {}

    /**
     * Sets every {@code WebClient.Builder}'s connector to Ballast's, over Boot's (ordered after
     * Boot's customizer that sets its own).
     */
    @Bean
    @Order(1000)
    public WebClientCustomizer ballastWebClientCustomizer(
        BallastClients clients, ObjectProvider<ClientHttpConnector> others) {
      if (clients.httpClients().isEmpty()) {
        return builder -> { };
      }
      BallastClientHttpConnector connector = new BallastClientHttpConnector(clients.httpClients(),
          others.getIfUnique(() -> ClientHttpConnectorBuilder.detect().build()));
      return builder -> builder.clientConnector(connector);
    }
  }
}

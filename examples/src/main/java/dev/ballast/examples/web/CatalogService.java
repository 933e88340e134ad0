package dev.ballast.examples.web;

import dev.ballast.spring.web.BallastClientHttpRequestFactory;
import java.time.Duration;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** Calls the orders backends through Spring's clients, balanced by the Ballast client orders. */
@Service
public class CatalogService {

  private final RestClient rest;
  private final WebClient web;

  /** Takes Spring Boot's builders, which the starter pointed at the Ballast clients. */
  public CatalogService(RestClient.Builder rest, WebClient.Builder web) {
    this.rest = rest.build();
    this.web = web.build();
  }

  /** Reads an item; a Ballast failure is a ResourceAccessException naming the client. */
  public String item(int id) {
    return rest.get().uri("http://orders/items/{id}", id).retrieve().body(String.class);
  }

  /** Reads an item without blocking, with a deadline of its own instead of the client's. */
  public Mono<String> itemLater(int id) {
    return web.get().uri("http://orders/items/{id}", id)
        .attribute(BallastClientHttpRequestFactory.TIMEOUT_ATTRIBUTE, Duration.ofMillis(300))
        .retrieve().bodyToMono(String.class);
  }
}

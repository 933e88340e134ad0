package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.examples.web.CatalogService;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web example as it stands: Spring's RestClient and WebClient reach a JDK HTTP server on
 * 127.0.0.1 through the Ballast client orders, made HTTP by one property.
 */
@SpringBootTest(classes = WebExampleTest.App.class,
    properties = "ballast.clients.orders.protocol=http")
class WebExampleTest {

  private static final HttpServer SERVER = start();

  @DynamicPropertySource
  static void endpoints(DynamicPropertyRegistry registry) {
    registry.add("ballast.clients.orders.endpoints[0]",
        () -> "127.0.0.1:" + SERVER.getAddress().getPort());
  }

  @AfterAll
  static void stop() {
    SERVER.stop(0);
  }

  @Autowired
  CatalogService catalog;

  @Test
  void bothClientsReachTheBackendThroughTheBallastClient() {
    assertThat(catalog.item(7)).isEqualTo("GET /items/7");
    assertThat(catalog.itemLater(8).block(Duration.ofSeconds(30))).isEqualTo("GET /items/8");
  }

  private static HttpServer start() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/", exchange -> {
        byte[] body = (exchange.getRequestMethod() + " " + exchange.getRequestURI())
            .getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      });
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Auto-configuration and the example's service. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(CatalogService.class)
  static class App {}
}

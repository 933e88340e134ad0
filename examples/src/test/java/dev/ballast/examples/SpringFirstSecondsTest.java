package dev.ballast.examples;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.examples.cloud.CloudBalancedClients;
import dev.ballast.examples.web.CatalogService;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.client.RestClient;

/**
 * The README's Spring examples with P2C peak EWMA over three identical HTTP servers on
 * 127.0.0.1: Spring's RestClient through a Ballast client, and a {@code @LoadBalanced}
 * RestClient through Spring Cloud LoadBalancer; every server has its share from the first call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpringFirstSecondsTest {

  private final List<HttpServer> servers = new ArrayList<>();
  private final List<IntSupplier> answered = new ArrayList<>();
  private final ExecutorService handlers = Executors.newFixedThreadPool(8);

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
    handlers.shutdownNow();
  }

  @Test
  void restClientThroughABallastClient() throws Exception {
    // arguments, which win over the example's application.yaml
    List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off",
        "--ballast.clients.orders.protocol=http"));
    for (int i = 0; i < 3; i++) {
      args.add("--ballast.clients.orders.endpoints[" + i + "]=127.0.0.1:" + server());
    }
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(WebApp.class)
        .web(WebApplicationType.NONE).run(args.toArray(String[]::new))) {
      CatalogService catalog = ctx.getBean(CatalogService.class);
      FairShare.assertFairFromTheFirstCall(() -> catalog.item(7), answered);
    }
  }

  @Test
  void loadBalancedRestClientThroughSpringCloudLoadBalancer() throws Exception {
    List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off",
        "--ballast.spring-cloud.balancer=p2c-peak-ewma"));
    for (int i = 0; i < 3; i++) {
      args.add("--spring.cloud.discovery.client.simple.instances.orders[" + i + "].uri="
          + "http://127.0.0.1:" + server());
    }
    try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(CloudApp.class)
        .web(WebApplicationType.NONE).run(args.toArray(String[]::new))) {
      RestClient client = ctx.getBean(RestClient.Builder.class).build();
      FairShare.assertFairFromTheFirstCall(
          () -> client.get().uri("http://orders/items").retrieve().body(String.class), answered);
    }
  }

  /** Starts a JDK HTTP server that answers every request and counts them; returns its port. */
  private int server() throws IOException {
    AtomicInteger count = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
    server.createContext("/", exchange -> {
      count.incrementAndGet();
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.setExecutor(handlers);
    server.start();
    servers.add(server);
    answered.add(count::get);
    return server.getAddress().getPort();
  }

  /** Auto-configuration and the web example's service. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(CatalogService.class)
  static class WebApp {}

  /** Auto-configuration and the Spring Cloud example's {@code @LoadBalanced} builder. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(CloudBalancedClients.class)
  static class CloudApp {}
}

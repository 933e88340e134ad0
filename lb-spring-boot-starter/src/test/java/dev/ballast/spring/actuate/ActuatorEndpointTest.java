package dev.ballast.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.spring.BallastClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Spring Boot application with Actuator on a real embedded Tomcat, whose {@code orders}
 * client (properties with placeholders for ports and durations) runs over three real framed
 * backends: {@code /actuator/ballast} shows each endpoint's state, then an ejection and a failed
 * health check with their causes; {@code /actuator/health} goes DOWN when no backend can take a
 * call and UP when they recover.
 */
@SpringBootTest(classes = ActuatorEndpointTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "ballast.clients.orders.endpoints[0]=127.0.0.1:${A_PORT}",
        "ballast.clients.orders.endpoints[1]=127.0.0.1:${B_PORT};zone=${B_ZONE:b}",
        "ballast.clients.orders.endpoints[2]=127.0.0.1:${C_PORT}",
        "ballast.clients.orders.balancer=round-robin",
        "ballast.clients.orders.timeout=${CALL_TIMEOUT:5s}",
        "ballast.clients.orders.outlier-detection.consecutive-failures=1",
        "ballast.clients.orders.outlier-detection.max-ejection-percent=100",
        "ballast.clients.orders.outlier-detection.base-ejection-time=${EJECTION:4m}",
        "ballast.clients.orders.health-check.enabled=true",
        "ballast.clients.orders.health-check.interval=${CHECK_INTERVAL:50ms}",
        "ballast.clients.orders.health-check.initial-jitter=0s",
        "management.endpoints.web.exposure.include=ballast,health",
        "management.endpoint.health.show-details=always"})
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ActuatorEndpointTest {

  private static final AtomicBoolean A_FAILING = new AtomicBoolean();
  private static final List<FramedServer> BACKENDS = new ArrayList<>();

  static {
    for (int i = 0; i < 3; i++) {
      boolean first = i == 0;
      BACKENDS.add(FramedServer.start(req -> first && A_FAILING.get()
          ? CompletableFuture.failedFuture(new IllegalStateException("a is failing"))
          : CompletableFuture.completedFuture(req.payload())));
    }
  }

  @DynamicPropertySource
  static void ports(DynamicPropertyRegistry registry) {
    registry.add("A_PORT", () -> BACKENDS.get(0).port());
    registry.add("B_PORT", () -> BACKENDS.get(1).port());
    registry.add("C_PORT", () -> BACKENDS.get(2).port());
  }

  @AfterAll
  static void stopBackends() {
    BACKENDS.forEach(FramedServer::close);
  }

  @Autowired
  Environment env;

  @Autowired
  BallastClients clients;

  private final HttpClient http = HttpClient.newHttpClient();
  private final JsonMapper json = JsonMapper.builder().build();

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + env.getProperty("local.server.port") + path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode ballast() throws Exception {
    HttpResponse<String> r = get("/actuator/ballast");
    assertThat(r.statusCode()).isEqualTo(200);
    return json.readTree(r.body());
  }

  private static JsonNode endpoint(JsonNode ballast, int backend) {
    for (JsonNode e : ballast.path("clients").path("orders").path("endpoints")) {
      if (e.path("address").asString().equals("127.0.0.1:" + BACKENDS.get(backend).port())) {
        return e;
      }
    }
    throw new AssertionError("no endpoint of backend " + backend + " in " + ballast);
  }

  /** Polls a GET until the answer satisfies the condition; bounded. */
  private HttpResponse<String> await(String path, Predicate<HttpResponse<String>> condition)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    HttpResponse<String> r = get(path);
    while (!condition.test(r) && System.nanoTime() < deadline) {
      LockSupport.parkNanos(20_000_000); // polls the state; what is asserted is the answer
      r = get(path);
    }
    return r;
  }

  @Test
  void theEndpointShowsEachEndpointThenAnEjectionAndAFailedCheckAndHealthFollows()
      throws Exception {
    JsonNode before = ballast();
    JsonNode orders = before.path("clients").path("orders");
    assertThat(orders.path("name").asString()).isEqualTo("orders");
    assertThat(orders.path("policy").asString()).isEqualTo("round_robin");
    assertThat(orders.path("endpoints")).hasSize(3);
    assertThat(endpoint(before, 1).path("zone").asString()).isEqualTo("b");
    for (int i = 0; i < 3; i++) {
      assertThat(endpoint(before, i).path("health").asString()).isEqualToIgnoringCase("healthy");
      assertThat(endpoint(before, i).path("availability").asString()).isEqualTo("OPEN");
      assertThat(endpoint(before, i).path("healthCause").isNull()).isTrue();
    }
    assertThat(before.path("channels").isArray()).isTrue();
    assertThat(get("/actuator/ballast/orders").body()).contains("\"name\":\"orders\"");
    assertThat(get("/actuator/ballast/nobody").statusCode()).isEqualTo(404);
    assertThat(json.readTree(get("/actuator/health").body())
        .at("/components/ballast/components/orders/status").asString()).isEqualTo("UP");

    // a fails its calls: outlier detection ejects it after one
    A_FAILING.set(true);
    BallastClient<byte[], byte[]> client = clients.framed("orders");
    for (int i = 0; i < 30 && !clients.get("orders").status().endpoints().get(0).health()
        .equals(dev.ballast.core.Health.UNHEALTHY); i++) {
      try {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      } catch (ExecutionException expected) {
        // a's failure
      }
    }
    JsonNode ejected = endpoint(ballast(), 0);
    assertThat(ejected.path("health").asString()).isEqualToIgnoringCase("unhealthy");
    assertThat(ejected.path("healthCause").asString()).startsWith("outlier detection: ");

    // b stops serving: its active check fails
    BACKENDS.get(1).setServing(false);
    HttpResponse<String> checked = await("/actuator/ballast",
        r -> r.body().contains("active check: unhealthy"));
    JsonNode b = endpoint(json.readTree(checked.body()), 1);
    assertThat(b.path("healthCause").asString()).isEqualTo("active check: unhealthy");
    assertThat(b.path("availability").asString()).isEqualTo("CLOSED");
    assertThat(json.readTree(get("/actuator/health").body())
        .at("/components/ballast/components/orders/status").asString()).isEqualTo("UP");

    // c too: no endpoint can take a call
    BACKENDS.get(2).setServing(false);
    HttpResponse<String> down = await("/actuator/health", r -> r.statusCode() == 503);
    assertThat(down.statusCode()).isEqualTo(503);
    JsonNode ordersHealth = json.readTree(down.body()).at("/components/ballast/components/orders");
    assertThat(ordersHealth.path("status").asString()).isEqualTo("DOWN");
    assertThat(ordersHealth.at("/details/reason").asString())
        .startsWith("no endpoint can take a call: ")
        .contains("outlier detection").contains("active check: unhealthy");

    // b and c serve again: their checks pass and the client is UP
    BACKENDS.get(1).setServing(true);
    BACKENDS.get(2).setServing(true);
    HttpResponse<String> up = await("/actuator/health", r -> r.statusCode() == 200);
    assertThat(up.statusCode()).isEqualTo(200);
    assertThat(json.readTree(up.body()).at("/components/ballast/components/orders/status")
        .asString()).isEqualTo("UP");
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}
}

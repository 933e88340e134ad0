package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot application whose only Ballast configuration is properties: a client named
 * {@code orders} over two real framed backends on 127.0.0.1, reporting to the application's
 * {@link SimpleMeterRegistry}.
 */
@SpringBootTest(classes = FramedBackendsApplicationTest.App.class, properties = {
    "ballast.clients.orders.balancer=round-robin",
    "ballast.clients.orders.timeout=5s"})
class FramedBackendsApplicationTest {

  private static final FramedServer BACKEND_A = FramedServer.start(reply("a"));
  private static final FramedServer BACKEND_B = FramedServer.start(reply("b"));

  @DynamicPropertySource
  static void endpoints(DynamicPropertyRegistry registry) {
    registry.add("ballast.clients.orders.endpoints[0]", () -> "127.0.0.1:" + BACKEND_A.port());
    registry.add("ballast.clients.orders.endpoints[1]",
        () -> "127.0.0.1:" + BACKEND_B.port() + ";zone=b");
  }

  @AfterAll
  static void stopBackends() {
    BACKEND_A.close();
    BACKEND_B.close();
  }

  @Autowired
  BallastClients clients;

  @Autowired
  MeterRegistry meters;

  @Test
  void callsAreBalancedOverBothBackendsAndMetered() throws Exception {
    BallastClient<byte[], byte[]> orders = clients.framed("orders");
    Map<String, Integer> answers = new HashMap<>();
    int calls = 200;
    for (int i = 0; i < calls; i++) {
      CompletableFuture<byte[]> reply = orders.call(("order-" + i).getBytes(StandardCharsets.UTF_8));
      String text = new String(reply.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
      assertThat(text).endsWith(":order-" + i);
      answers.merge(text.substring(0, text.indexOf(':')), 1, Integer::sum);
    }
    // Round robin over two endpoints, sequential calls: an exact half each.
    assertThat(answers).containsExactlyInAnyOrderEntriesOf(Map.of("a", 100, "b", 100));
    assertThat(BACKEND_A.requests()).isEqualTo(100);
    assertThat(BACKEND_B.requests()).isEqualTo(100);

    // (Spring Boot's registry: a composite over Prometheus's when that is on the class path)
    for (FramedServer backend : new FramedServer[] {BACKEND_A, BACKEND_B}) {
      String endpoint = "127.0.0.1:" + backend.port();
      Counter ok = meters.find("ballast.client.requests")
          .tags("client", "orders", "endpoint", endpoint, "outcome", "success").counter();
      assertThat(ok).as("requests counter of %s", endpoint).isNotNull();
      assertThat(ok.count()).isEqualTo(100.0);
      Timer latency = meters.find("ballast.client.latency")
          .tags("client", "orders", "endpoint", endpoint).timer();
      assertThat(latency).isNotNull();
      assertThat(latency.count()).isEqualTo(100);
    }
    Timer callsOk = meters.find("ballast.client.calls")
        .tags("client", "orders", "outcome", "success").timer();
    assertThat(callsOk).isNotNull();
    // lb-netty records a call's timer (and forgets the call) on its event loop just after
    // completing the call's future, so the last call may still be on its way: wait for it.
    awaitUntil(() -> callsOk.count() == calls && orders.inFlightCalls() == 0);
    assertThat(callsOk.count()).isEqualTo(calls);
    assertThat(orders.inFlightCalls()).isZero();
  }

  /** Spins (no sleep) until the condition holds, for at most 10 s. */
  private static void awaitUntil(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
  }

  private static FramedServer.Handler reply(String name) {
    byte[] prefix = (name + ":").getBytes(StandardCharsets.UTF_8);
    return req -> {
      byte[] payload = req.payload();
      byte[] out = new byte[prefix.length + payload.length];
      System.arraycopy(prefix, 0, out, 0, prefix.length);
      System.arraycopy(payload, 0, out, prefix.length, payload.length);
      return CompletableFuture.completedFuture(out);
    };
  }

  /** The application: auto-configuration plus a meter registry, nothing Ballast-specific. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }
}

package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.examples.spring.OrderService;
import dev.ballast.examples.spring.OrdersApplication;
import dev.ballast.netty.framed.FramedServer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The Spring example as it stands, application.yaml included, with its two endpoints pointed at
 * real framed backends on 127.0.0.1 (the README's addresses are not reachable here).
 */
@SpringBootTest(classes = OrdersApplication.class)
class SpringExampleTest {

  private static final FramedServer EAST = FramedServer.start(
      request -> CompletableFuture.completedFuture("east".getBytes(StandardCharsets.UTF_8)));
  private static final FramedServer WEST = FramedServer.start(
      request -> CompletableFuture.completedFuture("west".getBytes(StandardCharsets.UTF_8)));

  @DynamicPropertySource
  static void endpoints(DynamicPropertyRegistry registry) {
    registry.add("ballast.clients.orders.endpoints[0]",
        () -> "127.0.0.1:" + EAST.port() + ";weight=3;zone=us-east");
    registry.add("ballast.clients.orders.endpoints[1]",
        () -> "127.0.0.1:" + WEST.port() + ";zone=us-west");
  }

  @AfterAll
  static void stop() {
    EAST.close();
    WEST.close();
  }

  @Autowired
  OrderService orders;

  @Test
  void orderServiceCallsThroughTheConfiguredClient() throws Exception {
    for (int i = 0; i < 50; i++) {
      orders.place(new byte[] {1}).get(20, TimeUnit.SECONDS);
    }
    assertThat(EAST.requests() + WEST.requests()).isEqualTo(50);
  }
}

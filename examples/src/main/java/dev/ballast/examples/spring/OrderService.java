package dev.ballast.examples.spring;

import dev.ballast.netty.BallastClient;
import dev.ballast.spring.BallastClients;
import java.util.concurrent.CompletableFuture;
import org.springframework.stereotype.Service;

/** Calls the orders backends through the client the starter made from the properties. */
@Service
public class OrderService {

  private final BallastClient<byte[], byte[]> orders;

  /** Takes the framed client named orders. */
  public OrderService(BallastClients clients) {
    this.orders = clients.framed("orders"); // clients.http("name") for protocol: http
  }

  /** Sends an order; the future ends with the reply, or fails by the client's timeout. */
  public CompletableFuture<byte[]> place(byte[] order) {
    return orders.call(order);
  }
}

package dev.ballast.examples;

import dev.ballast.core.Balancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.loadaware.P2cPeakEwma;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** lb-core alone: a balancer over connections of your own, picked and completed by hand. */
public final class CoreExample {

  private final HttpClient http = HttpClient.newHttpClient();
  private final Balancer<URI> balancer;

  /** Balances over endpoints such as "10.0.0.1:8080;weight=3;zone=a,10.0.0.2:8080;zone=b". */
  public CoreExample(Balancer<URI> balancer, String endpoints) {
    this.balancer = balancer;
    balancer.update(Endpoint.parseList(endpoints), // one value per endpoint: a URI here, a pool in real life
        endpoint -> URI.create("http://" + endpoint.address()));
  }

  /** Sends a GET to the endpoint the balancer picks and tells the balancer how it went. */
  public String get(String path) throws IOException, InterruptedException {
    Node<URI> node = balancer.pick(); // counts one pending request on the node
    long start = System.nanoTime();
    boolean ok = false;
    try {
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(node.value().resolve(path)).build(),
          HttpResponse.BodyHandlers.ofString());
      ok = response.statusCode() < 500;
      return response.body();
    } finally {
      node.complete(System.nanoTime() - start, ok); // latency and outcome: what P2C peak EWMA learns from
    }
  }

  /** Sends one GET through P2C peak EWMA over the endpoints given as the first argument. */
  public static void main(String[] args) throws Exception {
    CoreExample orders = new CoreExample(new P2cPeakEwma<>(), args[0]);
    System.out.println(orders.get("/orders/42"));
  }
}

package dev.ballast.compare.peer;

import com.linecorp.armeria.client.Endpoint;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.client.endpoint.EndpointGroup;
import com.linecorp.armeria.client.endpoint.EndpointSelectionStrategy;
import com.linecorp.armeria.common.SessionProtocol;
import dev.ballast.compare.driver.Driver;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./ballast compare}'s driver for Armeria's {@code WebClient} over an {@code
 * EndpointGroup} of the targets: {@code weightedRoundRobin} (Armeria's default) or {@code
 * rampingUp}, over HTTP/1.1 ({@code H1C}) or h2c ({@code H2C}), a response timeout of the run's
 * deadline, every other setting at its default (no retries, no circuit breaker).
 */
public final class ArmeriaDriver {

  private ArmeriaDriver() {}

  /** Runs the driver (arguments: see {@link Driver}). */
  public static void main(String[] args) throws Exception {
    Driver.run(args, s -> {
      List<Endpoint> endpoints = new ArrayList<>();
      for (int i = 0; i < s.targets().size(); i++) {
        endpoints.add(Endpoint.of("127.0.0.1", s.port(i)));
      }
      EndpointSelectionStrategy strategy = s.policy().equals("rampingUp")
          ? EndpointSelectionStrategy.rampingUp() : EndpointSelectionStrategy.weightedRoundRobin();
      WebClient client = WebClient.builder(s.protocol().equals("h2") ? SessionProtocol.H2C : SessionProtocol.H1C,
              EndpointGroup.of(strategy, endpoints))
          .responseTimeoutMillis(s.timeoutMillis())
          .build();
      return () -> client.get("/").aggregate().thenApply(r -> {
        if (r.status().code() != 200) {
          throw new IllegalStateException("status " + r.status());
        }
        return r;
      });
    });
  }
}

package dev.ballast.spring.actuate;

import dev.ballast.core.status.BalancerStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code ballast} Actuator endpoint ({@code /actuator/ballast} over HTTP, read-only): the
 * status of every lb-netty client by name and of every gRPC channel's Ballast policy, as lb-core's
 * {@link BalancerStatus}; {@code /actuator/ballast/{name}} gives one client's. Like Spring's own
 * endpoints it is exposed over HTTP only when listed in {@code
 * management.endpoints.web.exposure.include}.
 */
@Endpoint(id = "ballast")
public class BallastEndpoint {

  private final Supplier<Map<String, BalancerStatus>> clients;
  private final Supplier<List<BalancerStatus>> channels;

  /**
   * Creates the endpoint.
   *
   * @param clients the status of the lb-netty clients, by name (none without lb-netty)
   * @param channels the status of the gRPC channels' Ballast policies (none without lb-grpc)
   */
  public BallastEndpoint(Supplier<Map<String, BalancerStatus>> clients,
      Supplier<List<BalancerStatus>> channels) {
    this.clients = Objects.requireNonNull(clients, "clients");
    this.channels = Objects.requireNonNull(channels, "channels");
  }

  /** Returns {@code clients} (by name) and {@code channels} (by authority) with their status. */
  @ReadOperation
  public Map<String, Object> ballast() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("clients", clients.get());
    out.put("channels", channels.get());
    return out;
  }

  /** Returns one client's status, or null (HTTP 404) when no lb-netty client has the name. */
  @ReadOperation
  public BalancerStatus client(@Selector String name) {
    return clients.get().get(name);
  }
}

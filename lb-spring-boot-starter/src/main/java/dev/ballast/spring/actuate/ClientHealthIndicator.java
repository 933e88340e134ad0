package dev.ballast.spring.actuate;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.status.EndpointStatus;
import dev.ballast.netty.BallastClient;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * A client's health: DOWN when none of its endpoints can take a call (none at all, or every one
 * ejected, failing its check, unhealthy by its source, or refusing a pool that keeps
 * connections), with the reason; UP otherwise, with how many endpoints can take calls. Read from
 * the client's {@link BallastClient#status()}.
 */
public final class ClientHealthIndicator implements HealthIndicator {

  private final BallastClient<?, ?> client;

  /** Creates the indicator of a client. */
  public ClientHealthIndicator(BallastClient<?, ?> client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  @Override
  public Health health() {
    BalancerStatus s = client.status();
    long open = s.endpoints().stream().filter(EndpointStatus::canTakeCalls).count();
    Health.Builder b = open > 0 ? Health.up() : Health.down();
    b.withDetail("policy", s.policy()).withDetail("endpoints", s.endpoints().size())
        .withDetail("available", open);
    String reason = s.downReason();
    if (reason != null) {
      b.withDetail("reason", reason);
    }
    return b.build();
  }
}

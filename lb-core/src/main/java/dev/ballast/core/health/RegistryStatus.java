package dev.ballast.core.health;

import dev.ballast.core.Health;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reads the status words registries write into {@link Health}, for the sources that find a status
 * field in an entry: Eureka's and Spring Cloud's instance status ({@code UP}, {@code DOWN},
 * {@code OUT_OF_SERVICE}, {@code STARTING}, {@code UNKNOWN}), Consul's check status ({@code
 * passing}, {@code warning}, {@code critical}), gRPC's serving status ({@code SERVING}, {@code
 * NOT_SERVING}), Envoy's EDS health status ({@code HEALTHY}, {@code UNHEALTHY}, {@code DRAINING},
 * {@code TIMEOUT}, {@code DEGRADED}) and Ballast's own {@code healthy}, {@code degraded}, {@code
 * unhealthy}. As in Envoy, an unknown status counts as healthy; a starting or draining endpoint
 * takes no new calls.
 */
public final class RegistryStatus {

  private static final Map<String, Health> WORDS = Map.ofEntries(
      Map.entry("up", Health.HEALTHY), Map.entry("healthy", Health.HEALTHY),
      Map.entry("serving", Health.HEALTHY), Map.entry("passing", Health.HEALTHY),
      Map.entry("unknown", Health.HEALTHY),
      Map.entry("degraded", Health.DEGRADED), Map.entry("warning", Health.DEGRADED),
      Map.entry("down", Health.UNHEALTHY), Map.entry("unhealthy", Health.UNHEALTHY),
      Map.entry("not_serving", Health.UNHEALTHY), Map.entry("out_of_service", Health.UNHEALTHY),
      Map.entry("critical", Health.UNHEALTHY), Map.entry("starting", Health.UNHEALTHY),
      Map.entry("draining", Health.UNHEALTHY), Map.entry("timeout", Health.UNHEALTHY));

  private RegistryStatus() {}

  /**
   * Returns the health a status word means, in any case, {@code -} read as {@code _}.
   *
   * @throws IllegalArgumentException naming the word and the expected ones
   */
  public static Health health(String status) {
    Objects.requireNonNull(status, "status");
    Health h = WORDS.get(status.toLowerCase(Locale.ROOT).replace('-', '_'));
    if (h == null) {
      throw new IllegalArgumentException("status: " + status + " (expected: UP, DOWN, "
          + "OUT_OF_SERVICE, STARTING, UNKNOWN, SERVING, NOT_SERVING, passing, warning, "
          + "critical, healthy, degraded, unhealthy, draining or timeout)");
    }
    return h;
  }
}

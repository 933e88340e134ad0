package dev.ballast.core.status;

import dev.ballast.core.Availability;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One endpoint of a balancer as it stands: what its source said of it and what the balancer
 * made of it since.
 *
 * @param address the endpoint's {@code host:port}
 * @param weight its weight, as its source gave it
 * @param ramp the share of its weight it takes now: below 1 while it ramps up under slow start,
 *     1 otherwise
 * @param rttEstimateNanos the latency estimate (peak EWMA) in nanoseconds, decayed to now, or -1
 *     when the policy does not track latency
 * @param pending requests picked and not yet ended (in flight)
 * @param availability what the layer below reports, {@code CLOSED} while unhealthy
 * @param health the worst of what its source, its active check and outlier detection say
 * @param healthCause why it is not healthy: {@code outlier detection}, {@code active check},
 *     {@code source}, each with its detail, joined by {@code "; "}; null when healthy
 * @param zone its zone label, or null
 * @param priority its priority (0 is the highest)
 * @param labels all its labels, subset labels among them
 */
public record EndpointStatus(String address, int weight, double ramp, double rttEstimateNanos,
    int pending, Availability availability, Health health, String healthCause, String zone,
    int priority, Map<String, String> labels) {

  /** Checks the fields and copies the labels. */
  public EndpointStatus {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(availability, "availability");
    Objects.requireNonNull(health, "health");
    labels = Map.copyOf(labels);
  }

  /**
   * Reads a node's state now.
   *
   * @param ramp the share of its weight the balancer gives it now (1 when not ramping)
   * @param ejection why outlier detection ejected it, or null if unknown or not ejected
   */
  public static EndpointStatus of(Node<?> node, double ramp, String ejection) {
    return of(node, ramp, ejection, "active check");
  }

  /**
   * Reads a node's state now, naming what sets its checked health ({@link Node#checkedHealth()})
   * in its cause: {@code active check} for lb-netty's health checker, {@code subchannel} for a
   * gRPC subchannel's state.
   */
  public static EndpointStatus of(Node<?> node, double ramp, String ejection, String checkedBy) {
    Endpoint e = node.endpoint();
    return new EndpointStatus(node.address(), e.weight(), ramp, node.rttEstimateNanos(),
        node.pending(), node.availability(), node.health(), cause(node, ejection, checkedBy),
        e.zone(), e.priority(), e.labels());
  }

  /** Whether a call may be sent to it: open or busy, not closed (nor unhealthy). */
  public boolean canTakeCalls() {
    return availability != Availability.CLOSED;
  }

  private static String cause(Node<?> node, String ejection, String checkedBy) {
    List<String> causes = new ArrayList<>(3);
    if (node.isEjected()) {
      causes.add("outlier detection" + (ejection == null ? "" : ": " + ejection));
    }
    if (node.checkedHealth() != Health.HEALTHY) {
      causes.add(checkedBy + ": " + node.checkedHealth());
    }
    if (node.endpoint().health() != Health.HEALTHY) {
      causes.add("source: " + node.endpoint().health());
    }
    return causes.isEmpty() ? null : String.join("; ", causes);
  }
}

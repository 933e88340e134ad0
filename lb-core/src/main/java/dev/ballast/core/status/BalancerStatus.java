package dev.ballast.core.status;

import dev.ballast.core.Health;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.core.subset.SubsetStats;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A balancer as it stands: a client's (lb-netty's {@code BallastClient#status()}) or a gRPC
 * channel's policy ({@code BallastGrpc.status}), built on request.
 *
 * @param name the client's name, or the channel's authority
 * @param policy the policy's name, e.g. {@code p2c_peak_ewma} or {@code locality(round_robin)}
 * @param takenAt when the status was read
 * @param endpoints every endpoint, in update order
 * @param levels for composites, the routes in force level by level: each priority's loads and
 *     whether it panics, each label subset and its size; empty for a plain policy
 * @param source the endpoint source's last update, or null when endpoints are given by code or
 *     by gRPC's name resolver
 */
public record BalancerStatus(String name, String policy, Instant takenAt,
    List<EndpointStatus> endpoints, List<String> levels, SourceStatus source) {

  /** Checks the fields and copies the lists. */
  public BalancerStatus {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(takenAt, "takenAt");
    endpoints = List.copyOf(endpoints);
    levels = List.copyOf(levels);
  }

  /** Whether at least one endpoint can take a call. */
  public boolean canTakeCalls() {
    for (EndpointStatus e : endpoints) {
      if (e.canTakeCalls()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns why no endpoint can take a call (none at all, or each one's cause), or null when one
   * can.
   */
  public String downReason() {
    if (endpoints.isEmpty()) {
      return source != null && !source.up() ? "no endpoints; source " + source.name() + " is down"
          : "no endpoints";
    }
    if (canTakeCalls()) {
      return null;
    }
    List<String> each = new ArrayList<>();
    for (EndpointStatus e : endpoints) { // a healthy one is closed: it cannot connect
      each.add(e.address() + " " + (e.health() == Health.HEALTHY ? "closed" : e.health()) + " ("
          + (e.healthCause() == null ? e.availability() : e.healthCause()) + ")");
    }
    return "no endpoint can take a call: " + String.join(", ", each);
  }

  /**
   * Returns the routes in force of a composite balancer, level by level: a {@link
   * LocalityBalancer}'s priorities ({@code priority=0 healthy=70% degraded=0% panic=false}), a
   * {@link SubsetSelector}'s subsets ({@code subset {version=v1} endpoints=3}) and fallback; an
   * empty list for anything else.
   */
  public static List<String> levels(Object balancer) {
    if (balancer instanceof LocalityBalancer<?> l) {
      return l.describe();
    }
    if (balancer instanceof SubsetSelector<?> s) {
      SubsetStats stats = s.stats();
      List<String> out = new ArrayList<>();
      for (SubsetStats.SubsetInfo i : stats.subsets()) {
        out.add("subset " + i.labels() + " endpoints=" + i.endpoints());
      }
      out.add("fallback=" + s.fallbackPolicy()
          + (stats.defaultSubsetSize() > 0 ? " endpoints=" + stats.defaultSubsetSize() : ""));
      return out;
    }
    return List.of();
  }
}

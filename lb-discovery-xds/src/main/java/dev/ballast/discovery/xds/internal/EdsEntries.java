package dev.ballast.discovery.xds.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns EDS resources (a {@link ClusterLoadAssignment}) into a source's entries: one per
 * endpoint, keyed by its address, valued in lb-core's textual form with the labels lb-core reads
 * ({@code zone}, {@code priority}, {@code health}) and the locality's {@code region} and {@code
 * subzone}. The whole resource is checked first: an xDS client accepts or rejects a resource as a
 * whole (the rejection is a NACK naming the reason), so one bad endpoint rejects the resource.
 *
 * <p>State of the World sends the whole resource on every change: an instance remembers the
 * entries of the last resource it read, by endpoint and locality, so that a change of 50
 * endpoints among 8000 checks and formats 50, and {@link #readChange} hands on those 50 alone
 * (the feed then takes 50 entries, not 8000 to compare). Used by one thread at a time. Not API.
 */
public final class EdsEntries {

  /** The type URL of an EDS resource. */
  public static final String TYPE_URL =
      "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

  /** The label of a locality's region. */
  public static final String REGION = "region";

  /** The label of a locality's sub-zone. */
  public static final String SUBZONE = "subzone";

  private Map<Key, Entry> last = new HashMap<>();
  private Map<String, String> lastEntries = Map.of();

  /** Creates an instance remembering nothing yet. */
  public EdsEntries() {}

  /**
   * Returns the entries of a resource as {@link #entries(ClusterLoadAssignment)} does, reusing
   * those of endpoints unchanged since the last resource read (same endpoint, same locality and
   * priority). A rejected resource leaves what is remembered as it was.
   *
   * @throws IllegalArgumentException as {@link #entries(ClusterLoadAssignment)}
   */
  public Map<String, String> read(ClusterLoadAssignment cla) {
    Map<Key, Entry> next = new HashMap<>(last.size() * 2);
    Map<String, String> out = entries(cla, last, next);
    last = next;
    lastEntries = out;
    return out;
  }

  /**
   * Reads a resource as {@link #read} does and returns it with what changed since the last
   * resource read: entries added or changed, and addresses gone. An unchanged endpoint's entry
   * is the same string as before, so the comparison is mostly a reference check.
   *
   * @throws IllegalArgumentException as {@link #entries(ClusterLoadAssignment)}
   */
  public Change readChange(ClusterLoadAssignment cla) {
    Map<String, String> before = lastEntries;
    Map<String, String> after = read(cla);
    Map<String, String> upserts = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : after.entrySet()) {
      String was = before.get(e.getKey());
      if (was != e.getValue() && !e.getValue().equals(was)) {
        upserts.put(e.getKey(), e.getValue());
      }
    }
    List<String> removed = new ArrayList<>();
    if (before.size() + upserts.size() != after.size()) { // else every old address is still in
      for (String address : before.keySet()) {
        if (!after.containsKey(address)) {
          removed.add(address);
        }
      }
    }
    return new Change(after, upserts, removed);
  }

  /**
   * Returns the entries of a resource, address to textual form.
   *
   * @throws IllegalArgumentException naming the resource, the locality and endpoint by index,
   *     and the bad field: a missing or non-IP socket address, a port outside 1-65535, a weight
   *     above 2147483647 or weights summing to more, a priority above 127, two endpoints with
   *     one address, or a label value lb-core refuses
   */
  public static Map<String, String> entries(ClusterLoadAssignment cla) {
    return entries(cla, Map.of(), new HashMap<>());
  }

  private static Map<String, String> entries(ClusterLoadAssignment cla, Map<Key, Entry> known,
      Map<Key, Entry> seen) {
    String resource = "EDS resource " + cla.getClusterName();
    Map<String, String> out = new LinkedHashMap<>();
    long total = 0; // every endpoint shares one balancer, whose weights sum to an int
    for (int l = 0; l < cla.getEndpointsCount(); l++) {
      LocalityLbEndpoints group = cla.getEndpoints(l);
      String where = resource + ", locality " + l;
      if (group.getPriority() > Endpoint.MAX_PRIORITY) {
        throw new IllegalArgumentException(where + ": priority " + group.getPriority()
            + " (expected: 0.." + Endpoint.MAX_PRIORITY + ")");
      }
      Map<String, String> labels = localityLabels(group.getLocality());
      labels.put(Endpoint.PRIORITY, Integer.toString(group.getPriority()));
      for (int e = 0; e < group.getLbEndpointsCount(); e++) {
        LbEndpoint lb = group.getLbEndpoints(e);
        Key key = new Key(group.getLocality(), group.getPriority(), lb);
        Entry entry = known.get(key);
        if (entry == null) {
          Endpoint ep = endpoint(lb, labels, where + ", endpoint " + e);
          entry = new Entry(ep.address(), ep.toString(), ep.weight());
        }
        total += entry.weight;
        if (total > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(where + ", endpoint " + e
              + ": load_balancing_weight " + entry.weight + " takes the resource's total to "
              + total + " (expected: a total of at most " + Integer.MAX_VALUE + ")");
        }
        seen.put(key, entry);
        String previous = out.put(entry.address, entry.text);
        if (previous != null) {
          throw new IllegalArgumentException(where + ", endpoint " + e + ": address "
              + entry.address + " repeated (expected: each address once in a resource)");
        }
      }
    }
    return out;
  }

  private static Endpoint endpoint(LbEndpoint lb, Map<String, String> localityLabels,
      String where) {
    if (!lb.hasEndpoint()) {
      throw new IllegalArgumentException(where + ": no endpoint (expected: an endpoint with a "
          + "socket address; named endpoints are not supported)");
    }
    Address address = lb.getEndpoint().getAddress();
    if (!address.hasSocketAddress()) {
      throw new IllegalArgumentException(where + ": address " + address.getAddressCase()
          .name().toLowerCase(Locale.ROOT) + " (expected: a socket address)");
    }
    SocketAddress sa = address.getSocketAddress();
    if (sa.getPortSpecifierCase() != SocketAddress.PortSpecifierCase.PORT_VALUE) {
      throw new IllegalArgumentException(where + ": " + sa.getPortSpecifierCase().name()
          .toLowerCase(Locale.ROOT) + " (expected: port_value)");
    }
    if (!sa.getResolverName().isEmpty()) {
      throw new IllegalArgumentException(where + ": resolver_name " + sa.getResolverName()
          + " (expected: none, an IP address or host name)");
    }
    long weight = lb.hasLoadBalancingWeight()
        ? Integer.toUnsignedLong(lb.getLoadBalancingWeight().getValue()) : 1;
    if (weight < 1 || weight > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(where + ": load_balancing_weight " + weight
          + " (expected: 1.." + Integer.MAX_VALUE + ")");
    }
    Map<String, String> labels = new HashMap<>(localityLabels);
    labels.put(Endpoint.HEALTH, health(lb.getHealthStatus()).name().toLowerCase(Locale.ROOT));
    try {
      return Endpoint.of(sa.getAddress(), sa.getPortValue(), (int) weight, labels);
    } catch (IllegalArgumentException bad) {
      throw new IllegalArgumentException(where + ": " + bad.getMessage(), bad);
    }
  }

  private static Map<String, String> localityLabels(Locality locality) {
    Map<String, String> labels = new HashMap<>();
    put(labels, REGION, locality.getRegion());
    put(labels, Endpoint.ZONE, locality.getZone());
    put(labels, SUBZONE, locality.getSubZone());
    return labels;
  }

  private static void put(Map<String, String> labels, String key, String value) {
    if (!value.isEmpty()) {
      labels.put(key, value);
    }
  }

  /**
   * Maps an EDS health status to lb-core's as Envoy counts them: UNKNOWN and HEALTHY are
   * healthy, DEGRADED is degraded, and UNHEALTHY, DRAINING, TIMEOUT and any unknown value are
   * unhealthy.
   */
  public static Health health(HealthStatus status) {
    switch (status) {
      case UNKNOWN:
      case HEALTHY:
        return Health.HEALTHY;
      case DEGRADED:
        return Health.DEGRADED;
      default:
        return Health.UNHEALTHY;
    }
  }

  /**
   * A resource's entries and their change since the resource read before it.
   *
   * @param entries every entry of the resource, address to textual form
   * @param upserts the entries added or changed
   * @param removed the addresses no longer in the resource
   */
  public record Change(Map<String, String> entries, Map<String, String> upserts,
      List<String> removed) {

    /** Returns whether nothing changed. */
    public boolean isEmpty() {
      return upserts.isEmpty() && removed.isEmpty();
    }
  }

  // an endpoint as a resource gives it: equal keys give equal entries
  private record Key(Locality locality, int priority, LbEndpoint endpoint) {}

  private record Entry(String address, String text, int weight) {}
}

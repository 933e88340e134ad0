package dev.ballast.discovery.xds.internal;

import com.google.protobuf.ByteString;
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
import java.util.function.Consumer;

/**
 * Turns EDS resources (a {@link ClusterLoadAssignment}) into a source's entries: one per
 * endpoint, keyed by its address, valued in lb-core's textual form with the labels lb-core reads
 * ({@code zone}, {@code priority}, {@code health}) and the locality's {@code region} and {@code
 * subzone}. The whole resource is checked first: an xDS client accepts or rejects a resource as a
 * whole (the rejection is a NACK naming the reason), so one bad endpoint rejects the resource.
 *
 * <p>State of the World sends the whole resource on every change: an instance remembers the
 * entries of the last resource it read, by socket address, so that a change of 50 endpoints
 * among 8000 checks and formats 50, and {@link #readChange} hands on those 50 alone (the feed
 * then takes 50 entries, not 8000 to compare). A resource is read from its bytes ({@link
 * PackedEds}): an endpoint whose bytes are those of one in the resource before, in a locality of
 * the same place, is unchanged at the cost of a hash and a compare of its bytes, and is not
 * parsed. Any other endpoint is parsed, and taken as unchanged when what its entry is made of is:
 * its host and port, weight, health status, and its locality and priority; other fields are not
 * read. Used by one thread at a time. Not API.
 */
public final class EdsEntries {

  /** The type URL of an EDS resource. */
  public static final String TYPE_URL =
      "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

  /** The label of a locality's region. */
  public static final String REGION = "region";

  /** The label of a locality's sub-zone. */
  public static final String SUBZONE = "subzone";

  private static final int LB_ENDPOINTS = 2 << 3 | 2; // LocalityLbEndpoints.lb_endpoints' tag

  private Known last = new Known(0);
  private Map<String, String> lastEntries = Map.of();

  /** Creates an instance remembering nothing yet. */
  public EdsEntries() {}

  /**
   * Returns the entries of a resource as {@link #entries(ClusterLoadAssignment)} does, reusing
   * those of endpoints unchanged since the last resource read (same host and port, weight,
   * health, locality and priority). A rejected resource leaves what is remembered as it was.
   *
   * @throws IllegalArgumentException as {@link #entries(ClusterLoadAssignment)}
   */
  public Map<String, String> read(ClusterLoadAssignment cla) {
    return readChange(cla).entries();
  }

  /**
   * Reads a resource as {@link #read} does and returns it with what changed since the last
   * resource read: entries added or changed, and addresses gone. Only the endpoints that are
   * not as before are compared with the entries before; the others are known unchanged.
   *
   * @throws IllegalArgumentException as {@link #entries(ClusterLoadAssignment)}
   */
  public Change readChange(ClusterLoadAssignment cla) {
    return readChange(PackedEds.of(cla));
  }

  /**
   * Reads a resource from its bytes as {@link #readChange(ClusterLoadAssignment)} does; only
   * the endpoints whose bytes are not those of an endpoint of the last resource read are parsed.
   *
   * @throws IllegalArgumentException as {@link #entries(ClusterLoadAssignment)}, or naming the
   *     locality and endpoint by index whose bytes are not a protobuf message of their type
   */
  public Change readChange(PackedEds cla) {
    try {
      return readOnce(cla);
    } catch (IllegalArgumentException e) {
      return readOnce(cla.reparsed(e)); // protobuf's parser takes what reading the bytes refused
    }
  }

  private Change readOnce(PackedEds cla) {
    Map<String, String> before = lastEntries;
    Known next = new Known(last.byKey.size());
    Map<String, String> upserts = new LinkedHashMap<>();
    int[] added = new int[1];
    Map<String, String> after = entries(cla, last, next, entry -> {
      String was = before.get(entry.address);
      if (!entry.text.equals(was)) {
        upserts.put(entry.address, entry.text);
        if (was == null) {
          added[0]++;
        }
      }
    });
    List<String> removed = new ArrayList<>();
    if (before.size() + added[0] != after.size()) { // else every old address is still in
      for (String address : before.keySet()) {
        if (!after.containsKey(address)) {
          removed.add(address);
        }
      }
    }
    last = next;
    lastEntries = after;
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
    return entries(PackedEds.of(cla), new Known(0), new Known(0), entry -> { });
  }

  // Every entry of the resource; those of endpoints not found unchanged in known are built
  // afresh and given to fresh. seen gets every endpoint's entry by its bytes and its key.
  private static Map<String, String> entries(PackedEds cla, Known known, Known seen,
      Consumer<Entry> fresh) {
    String resource = "EDS resource " + cla.clusterName();
    Map<String, String> out = new LinkedHashMap<>(Math.max(16, known.byKey.size() * 4 / 3 + 1));
    long total = 0; // every endpoint shares one balancer, whose weights sum to an int
    for (int l = 0; l < cla.localities().size(); l++) {
      String where = resource + ", locality " + l;
      List<ByteString> endpoints = new ArrayList<>();
      LocalityLbEndpoints group = PackedEds.parse(LocalityLbEndpoints.parser(),
          PackedEds.split(cla.localities().get(l), LB_ENDPOINTS, endpoints, where), where);
      if (group.getPriority() > Endpoint.MAX_PRIORITY) {
        throw new IllegalArgumentException(where + ": priority " + group.getPriority()
            + " (expected: 0.." + Endpoint.MAX_PRIORITY + ")");
      }
      Locality locality = group.getLocality();
      Place place = new Place(locality.getRegion(), locality.getZone(), locality.getSubZone(),
          group.getPriority());
      Map<String, String> labels = null; // built for the first endpoint not known
      for (int e = 0; e < endpoints.size(); e++) {
        ByteString bytes = endpoints.get(e);
        Entry entry = known.byBytes.get(bytes);
        if (entry != null && entry.place != place && entry.place.equals(place)) {
          place = entry.place; // the one of the read before: compared by reference from now
        }
        if (entry == null || entry.place != place) {
          LbEndpoint lb = PackedEds.parse(LbEndpoint.parser(), bytes, where + ", endpoint " + e);
          Key key = Key.of(lb);
          entry = key == null ? null : known.byKey.get(key);
          if (entry != null && entry.place != place && entry.place.equals(place)) {
            place = entry.place;
          }
          if (entry == null || !entry.same(lb, place)) {
            if (labels == null) {
              labels = localityLabels(locality);
              labels.put(Endpoint.PRIORITY, Integer.toString(group.getPriority()));
            }
            Endpoint ep = endpoint(lb, labels, where + ", endpoint " + e);
            entry = new Entry(key, ep.address(), ep.toString(), ep.weight(),
                lb.getHealthStatusValue(), place);
            fresh.accept(entry);
          }
        }
        total += entry.weight;
        if (total > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(where + ", endpoint " + e
              + ": load_balancing_weight " + entry.weight + " takes the resource's total to "
              + total + " (expected: a total of at most " + Integer.MAX_VALUE + ")");
        }
        String previous = out.put(entry.address, entry.text);
        if (previous != null) {
          throw new IllegalArgumentException(where + ", endpoint " + e + ": address "
              + entry.address + " repeated (expected: each address once in a resource)");
        }
        seen.byKey.put(entry.key, entry); // not null: the endpoint was read
        seen.byBytes.put(bytes, entry);
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

  // what the last resource read was made of: each endpoint's entry by its bytes and by its key
  private static final class Known {
    final Map<ByteString, Entry> byBytes;
    final Map<Key, Entry> byKey;

    Known(int size) {
      byBytes = new HashMap<>(Math.max(16, size * 4 / 3 + 1));
      byKey = new HashMap<>(Math.max(16, size * 4 / 3 + 1));
    }
  }

  // An endpoint's socket address as a resource gives it. Not a record: a record's equals and
  // hashCode are slow until compiled, and pushes are rare enough to run this code cold.
  private static final class Key {
    final String host;
    final int port;

    private Key(String host, int port) {
      this.host = host;
      this.port = port;
    }

    // null if the endpoint has no socket address of port_value without a resolver: endpoint()
    // rejects those
    static Key of(LbEndpoint lb) {
      SocketAddress sa = lb.getEndpoint().getAddress().getSocketAddress();
      return lb.hasEndpoint() && lb.getEndpoint().getAddress().hasSocketAddress()
          && sa.getPortSpecifierCase() == SocketAddress.PortSpecifierCase.PORT_VALUE
          && sa.getResolverName().isEmpty() ? new Key(sa.getAddress(), sa.getPortValue()) : null;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && port == k.port && host.equals(k.host);
    }

    @Override
    public int hashCode() {
      return host.hashCode() * 31 + port;
    }
  }

  // a locality and priority, as an endpoint's labels come of them
  private record Place(String region, String zone, String subZone, int priority) {}

  // an endpoint's entry and what else it was made of than its key
  private record Entry(Key key, String address, String text, int weight, int health,
      Place place) {

    // whether the endpoint, of the same key, gives this entry; at is the place of its locality,
    // the same instance as this entry's if they are equal
    boolean same(LbEndpoint lb, Place at) {
      long w = lb.hasLoadBalancingWeight()
          ? Integer.toUnsignedLong(lb.getLoadBalancingWeight().getValue()) : 1;
      return place == at && w == weight && lb.getHealthStatusValue() == health;
    }
  }
}

package dev.ballast.grpc;

import dev.ballast.core.Endpoint;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.InternalEquivalentAddressGroup;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link Attributes.Key}s under which an {@link EquivalentAddressGroup} carries an
 * endpoint's weight and labels to Ballast's policies, and the conversions both ways.
 *
 * <p>Any name resolver can set them; a group without them has weight 1 and no labels. The
 * policies balance one subchannel per group and identify it by the group's first address.
 *
 * <p>Under grpc-xds (a cluster naming a Ballast policy, gRFC A52), groups carry gRPC's own
 * endpoint weight instead, which the policies read when {@link #WEIGHT} is absent: the
 * locality's weight times the endpoint's when gRPC's {@code
 * GRPC_EXPERIMENTAL_PF_WEIGHTED_SHUFFLING} is {@code false}, so that weights within a locality
 * keep their exact ratios; otherwise (gRPC's default, gRFC A113) a 31-bit fixed-point share of
 * the cluster, which is read in units of 2<sup>-15</sup> (at least 1), so that ratios hold to
 * about 1/65536 of the cluster and a weighted ring stays small.
 */
public final class EndpointAttributes {

  /** The endpoint weight, an {@link Integer} &gt; 0; absent means 1. */
  public static final Attributes.Key<Integer> WEIGHT = Attributes.Key.create("ballast.weight");

  /** The endpoint labels, e.g. {@code zone=a}; absent means none. */
  public static final Attributes.Key<Map<String, String>> LABELS =
      Attributes.Key.create("ballast.labels");

  // grpc-xds's switch between integer weights and fixed-point shares, read as gRPC reads it
  private static final boolean FIXED_POINT_WEIGHTS =
      flag("GRPC_EXPERIMENTAL_PF_WEIGHTED_SHUFFLING");

  private EndpointAttributes() {}

  /**
   * Returns a group holding the endpoint's socket address with its weight and labels as
   * attributes. The host is resolved here with {@link InetSocketAddress#InetSocketAddress(String,
   * int)}: instant for IP literals, a blocking DNS look-up for names.
   */
  public static EquivalentAddressGroup toAddressGroup(Endpoint endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    SocketAddress address = new InetSocketAddress(endpoint.host(), endpoint.port());
    Attributes attrs = Attributes.newBuilder()
        .set(WEIGHT, endpoint.weight())
        .set(LABELS, endpoint.labels())
        .build();
    return new EquivalentAddressGroup(List.of(address), attrs);
  }

  /**
   * Returns the endpoint a group stands for: the first address's host (its literal IP or the
   * name it was made with) and port, the {@link #WEIGHT} (else gRPC's, else 1) and the {@link
   * #LABELS} (default none).
   *
   * @throws IllegalArgumentException if the group's first address is not an {@link
   *     InetSocketAddress}, or the weight or a label is invalid (the message names it)
   */
  public static Endpoint toEndpoint(EquivalentAddressGroup group) {
    Objects.requireNonNull(group, "group");
    SocketAddress first = group.getAddresses().get(0);
    if (!(first instanceof InetSocketAddress)) {
      throw new IllegalArgumentException("address: " + first
          + " (expected: an InetSocketAddress)");
    }
    InetSocketAddress inet = (InetSocketAddress) first;
    Integer weight = group.getAttributes().get(WEIGHT);
    if (weight == null) {
      weight = grpcWeight(group.getAttributes().get(InternalEquivalentAddressGroup.ATTR_WEIGHT));
    }
    Map<String, String> labels = group.getAttributes().get(LABELS);
    return Endpoint.of(inet.getHostString(), inet.getPort(), weight == null ? 1 : weight,
        labels == null ? Map.of() : labels);
  }

  // gRPC's weight (a uint32) as an endpoint weight; null when there is none
  private static Integer grpcWeight(Long w) {
    if (w == null || w <= 0) {
      return null;
    }
    long scaled = FIXED_POINT_WEIGHTS ? Math.max(1, Math.round(w / 32768.0)) : w;
    return (int) Math.min(Integer.MAX_VALUE, scaled);
  }

  private static boolean flag(String name) {
    String v = System.getenv(name);
    if (v == null) {
      v = System.getProperty(name);
    }
    return v == null || v.isBlank() || Boolean.parseBoolean(v.trim());
  }
}

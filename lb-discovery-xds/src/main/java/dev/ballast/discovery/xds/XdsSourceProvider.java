package dev.ballast.discovery.xds;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code xds} target scheme, naming the EDS resource (the cluster) in the path:
 *
 * <ul>
 *   <li>{@code xds:///orders} — the control plane and node of gRPC's bootstrap ({@link
 *       XdsBootstrap#fromEnvironment}: {@code GRPC_XDS_BOOTSTRAP} or {@code
 *       -Dio.grpc.xds.bootstrap}), so that a Ballast client and a grpc-xds channel share one
 *       bootstrap file;
 *   <li>{@code xds://xds.internal:18000/orders?node=orders-client-1} — that control plane in
 *       plaintext, as the node {@code node} (default {@code ballast}), State of the World.
 * </ul>
 *
 * <p>{@code delta=true} (or {@code false}) in the query chooses incremental (Delta) xDS (or State
 * of the World) whatever the bootstrap says, e.g. {@code xds:///orders?delta=true} or {@code
 * xds://xds.internal:18000/orders?node=orders-client-1&delta=true}.
 *
 * <p>A cluster name with characters a URI does not allow ({@code |}, spaces) is percent-encoded.
 * Registered through {@code META-INF/services}.
 */
public final class XdsSourceProvider implements EndpointSourceProvider {

  /** The scheme, {@code xds}. */
  public static final String SCHEME = "xds";

  private static final String FORM =
      "xds:///cluster[?delta=true] or xds://host:port/cluster[?node=id&delta=true]";

  /** Creates the provider (for {@link java.util.ServiceLoader}). */
  public XdsSourceProvider() {}

  @Override
  public String scheme() {
    return SCHEME;
  }

  /**
   * Creates a source for the target.
   *
   * @throws IllegalArgumentException if the target names no cluster, has a query other than
   *     {@code node=id} and {@code delta=true|false}, or (without a server) no bootstrap is found
   *     or it is bad
   */
  @Override
  public EndpointSource create(URI target) {
    String cluster = EndpointSourceProvider.path(target, FORM).substring(1);
    Map<String, String> query = query(target);
    String node = query.get("node");
    String delta = query.get("delta");
    XdsBootstrap bootstrap;
    if (target.getRawAuthority() == null || target.getRawAuthority().isEmpty()) {
      if (node != null) {
        throw new IllegalArgumentException("target: " + target + " (a node is named by the "
            + "bootstrap when the target names no server)");
      }
      bootstrap = XdsBootstrap.fromEnvironment();
    } else {
      bootstrap = XdsBootstrap.of(target.getRawAuthority(), node == null ? "ballast" : node);
    }
    XdsSource.Builder b = XdsSource.builder(bootstrap, cluster);
    if (delta != null) {
      b.delta(Boolean.parseBoolean(delta));
    }
    return b.build();
  }

  // node=id and delta=true|false, each at most once
  private static Map<String, String> query(URI target) {
    Map<String, String> out = new HashMap<>();
    String query = target.getQuery();
    if (query == null) {
      return out;
    }
    for (String pair : query.split("&", -1)) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      boolean known = key.equals("node") ? !value.isEmpty()
          : key.equals("delta") && (value.equals("true") || value.equals("false"));
      if (!known || out.put(key, value) != null) {
        throw new IllegalArgumentException("query: \"" + pair + "\" (expected: node=ID or "
            + "delta=true|false, each once, as in " + FORM + ") in " + target);
      }
    }
    return out;
  }
}

package dev.ballast.discovery.xds;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import java.net.URI;

/**
 * The {@code xds} target scheme, naming the EDS resource (the cluster) in the path:
 *
 * <ul>
 *   <li>{@code xds:///orders} — the control plane and node of gRPC's bootstrap ({@link
 *       XdsBootstrap#fromEnvironment}: {@code GRPC_XDS_BOOTSTRAP} or {@code
 *       -Dio.grpc.xds.bootstrap}), so that a Ballast client and a grpc-xds channel share one
 *       bootstrap file;
 *   <li>{@code xds://xds.internal:18000/orders?node=orders-client-1} — that control plane in
 *       plaintext, as the node {@code node} (default {@code ballast}).
 * </ul>
 *
 * <p>A cluster name with characters a URI does not allow ({@code |}, spaces) is percent-encoded.
 * Registered through {@code META-INF/services}.
 */
public final class XdsSourceProvider implements EndpointSourceProvider {

  /** The scheme, {@code xds}. */
  public static final String SCHEME = "xds";

  private static final String FORM = "xds:///cluster or xds://host:port/cluster[?node=id]";

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
   *     {@code node=id}, or (without a server) no bootstrap is found or it is bad
   */
  @Override
  public EndpointSource create(URI target) {
    String cluster = EndpointSourceProvider.path(target, FORM).substring(1);
    String node = EndpointSourceProvider.query(target, "node", FORM);
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
    return XdsSource.builder(bootstrap, cluster).build();
  }
}

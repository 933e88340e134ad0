package dev.ballast.discovery.dns;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * The {@code ballast-dns} target scheme (not {@code dns}, which gRPC's own resolver owns):
 * {@code ballast-dns:///orders.internal:8080} resolves A/AAAA records and takes port 8080,
 * {@code ballast-dns:///_grpc._tcp.orders.internal} resolves SRV records; an authority names
 * the DNS server to ask ({@code ballast-dns://10.0.0.53:53/orders.internal:8080}), the
 * system's otherwise. {@link DnsSource}'s defaults apply. Registered through {@code
 * META-INF/services}.
 */
public final class DnsSourceProvider implements EndpointSourceProvider {

  /** The scheme, {@code ballast-dns}. */
  public static final String SCHEME = "ballast-dns";

  /** Creates the provider (for {@link java.util.ServiceLoader}). */
  public DnsSourceProvider() {}

  @Override
  public String scheme() {
    return SCHEME;
  }

  /**
   * Creates a source for the target.
   *
   * @throws IllegalArgumentException if the name, its port or the DNS server is malformed
   */
  @Override
  public EndpointSource create(URI target) {
    String path = target.getPath() == null ? "" : target.getPath();
    String name = path.startsWith("/") ? path.substring(1) : path;
    DnsSource.Builder b;
    if (name.startsWith("_")) {
      b = DnsSource.forSrv(name);
    } else {
      int colon = name.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("target: " + target + " (expected: "
            + "ballast-dns:///name:port or ballast-dns:///_service._tcp.name)");
      }
      int port;
      try {
        port = Integer.parseInt(name.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("port: " + name.substring(colon + 1)
            + " (expected: 1-65535) in target " + target, e);
      }
      b = DnsSource.forName(name.substring(0, colon), port);
    }
    if (target.getHost() != null) {
      b.nameServer(new InetSocketAddress(target.getHost(),
          target.getPort() > 0 ? target.getPort() : 53));
    }
    return b.build();
  }
}

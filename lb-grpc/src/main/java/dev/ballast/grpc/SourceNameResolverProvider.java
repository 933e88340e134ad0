package dev.ballast.grpc;

import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.grpc.internal.BallastNameResolver;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A gRPC name resolver for the targets of one lb-core endpoint source scheme, found on the
 * class path through {@link EndpointSourceProvider}: the channel follows the registry, with
 * each endpoint's weight and labels as {@link EndpointAttributes}. lb-grpc depends on no
 * registry client; a provider is available only when the matching lb-discovery module is on
 * the class path. The three below are registered through {@code META-INF/services}:
 *
 * <pre>{@code
 * // with lb-discovery-zookeeper, lb-discovery-etcd or lb-discovery-dns on the class path:
 * ManagedChannelBuilder.forTarget("zookeeper://10.0.0.5:2181/services/orders")
 * ManagedChannelBuilder.forTarget("etcd://10.0.0.6:2379/services/orders/")
 * ManagedChannelBuilder.forTarget("ballast-dns:///orders.internal:8080")
 *     .defaultLoadBalancingPolicy("vnswrr").usePlaintext().build();
 * }</pre>
 *
 * <p>Updates are applied through an lb-core {@code EndpointFeed}: malformed entries are
 * skipped, bursts coalesced (100 ms), and a registry outage keeps the channel's last
 * addresses. A source that fails before giving any endpoint (the registry is down at start-up)
 * is the channel's resolution error, as a DNS failure is for gRPC's own resolver: calls that
 * are not wait-for-ready fail {@code UNAVAILABLE} rather than wait for their deadline. When the policy asks for a re-resolution (connections failing), the source is
 * asked for an early re-read (DNS re-resolves at once). The service authority is the target's
 * last path segment ({@code orders}). With Micrometer on the class path, the source's meters
 * ({@code ballast.source.endpoints}, {@code .updates}, {@code .rejected}, {@code .up}, {@code
 * .staleness}, tagged {@code target} and {@code source}) are in Micrometer's global registry
 * until the channel shuts down. Priority 5.
 */
public class SourceNameResolverProvider extends NameResolverProvider {

  private final String scheme;

  /** Creates a provider for targets of the given source scheme. */
  public SourceNameResolverProvider(String scheme) {
    this.scheme = Objects.requireNonNull(scheme, "scheme");
  }

  /**
   * Returns a resolver for a target of this scheme, or null for another scheme.
   *
   * @throws IllegalArgumentException if the source rejects the target (the message names the
   *     bad part)
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!scheme.equalsIgnoreCase(targetUri.getScheme())) {
      return null;
    }
    EndpointSourceProvider p = EndpointSourceProvider.find(scheme);
    if (p == null) {
      return null;
    }
    return BallastNameResolver.following(targetUri.toString(), authority(targetUri),
        p.create(targetUri), args);
  }

  private static String authority(URI target) {
    String path = target.getPath() == null ? "" : target.getPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    String last = path.substring(path.lastIndexOf('/') + 1);
    int colon = last.lastIndexOf(':'); // ballast-dns:///name:port
    if (colon > 0) {
      return last.substring(0, colon);
    }
    return last.isEmpty() ? target.getScheme() : last;
  }

  @Override
  public String getDefaultScheme() {
    return scheme;
  }

  /** Available when an endpoint source for the scheme is on the class path. */
  @Override
  protected boolean isAvailable() {
    return EndpointSourceProvider.find(scheme) != null;
  }

  /** Returns 5, the priority of gRPC's built-in providers. */
  @Override
  protected int priority() {
    return 5;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  /** {@code zookeeper://host:port[,host:port...]/base/service}, with lb-discovery-zookeeper. */
  public static final class ZooKeeper extends SourceNameResolverProvider {
    /** Creates the provider (for {@link java.util.ServiceLoader}). */
    public ZooKeeper() {
      super("zookeeper");
    }
  }

  /** {@code etcd://host:port[,host:port...]/prefix/}, with lb-discovery-etcd. */
  public static final class Etcd extends SourceNameResolverProvider {
    /** Creates the provider (for {@link java.util.ServiceLoader}). */
    public Etcd() {
      super("etcd");
    }
  }

  /**
   * {@code ballast-dns:///name:port} or {@code ballast-dns:///_service._tcp.name}, with
   * lb-discovery-dns.
   */
  public static final class Dns extends SourceNameResolverProvider {
    /** Creates the provider (for {@link java.util.ServiceLoader}). */
    public Dns() {
      super("ballast-dns");
    }
  }
}

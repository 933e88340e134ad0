package dev.ballast.grpc;

import dev.ballast.core.Endpoint;
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
 * The {@code ballast} target scheme, registered through {@code META-INF/services}. Two forms:
 *
 * <ul>
 *   <li>{@code ballast:///10.0.0.1:443;weight=3;zone=a,10.0.0.2:443;zone=b} — a fixed list in
 *       lb-core's textual form ({@link Endpoint#parseList}); IPv6 hosts are written
 *       percent-encoded ({@code %5B::1%5D:8080}) since a URI path cannot hold brackets;
 *   <li>{@code ballast://orders} — the list published under {@code orders} in an {@link
 *       EndpointRegistry} ({@link EndpointRegistry#global()} by default), followed as it changes.
 * </ul>
 *
 * <p>Each endpoint becomes one {@code EquivalentAddressGroup} with its weight and labels as
 * {@link EndpointAttributes}. Host names are resolved once per update on the channel's offload
 * executor. Priority 5, like gRPC's own providers.
 */
public final class BallastNameResolverProvider extends NameResolverProvider {

  /** The target scheme, {@code ballast}. */
  public static final String SCHEME = "ballast";

  private final EndpointRegistry registry;

  /** Creates the provider over {@link EndpointRegistry#global()}. */
  public BallastNameResolverProvider() {
    this(EndpointRegistry.global());
  }

  /** Creates a provider whose {@code ballast://<name>} targets read the given registry. */
  public BallastNameResolverProvider(EndpointRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * Returns a resolver for a {@code ballast:} target, or null for another scheme.
   *
   * @throws IllegalArgumentException if the target has both a name and a path, a name the
   *     registry refuses (a port, a space), a malformed endpoint (the message names it), or no
   *     endpoint at all
   */
  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!SCHEME.equals(targetUri.getScheme())) {
      return null;
    }
    String name = targetUri.getAuthority();
    String path = targetUri.getPath() == null ? "" : targetUri.getPath();
    if (name != null && !name.isEmpty()) {
      if (!path.isEmpty() && !path.equals("/")) {
        throw new IllegalArgumentException("target: " + targetUri
            + " (expected: ballast://<name> or ballast:///<endpoints>, not both)");
      }
      try {
        EndpointRegistry.checkName(name);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("target: " + targetUri + ": " + e.getMessage(), e);
      }
      return BallastNameResolver.following(name, registry, args);
    }
    String list = path.startsWith("/") ? path.substring(1) : path;
    List<Endpoint> endpoints = Endpoint.parseList(list);
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("target: " + targetUri
          + " (expected: at least one endpoint, e.g. ballast:///10.0.0.1:443;weight=3)");
    }
    return BallastNameResolver.fixed(endpoints, args);
  }

  @Override
  public String getDefaultScheme() {
    return SCHEME;
  }

  @Override
  protected boolean isAvailable() {
    return true;
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
}

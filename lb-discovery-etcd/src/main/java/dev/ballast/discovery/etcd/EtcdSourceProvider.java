package dev.ballast.discovery.etcd;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import io.etcd.jetcd.Client;
import java.net.URI;

/**
 * The {@code etcd} target scheme: {@code etcd://host:port[,host:port...]/prefix/} watches the
 * keys under {@code /prefix/} with a client of its own (plain HTTP to each {@code host:port}),
 * closed with the source. Registered through {@code META-INF/services}.
 */
public final class EtcdSourceProvider implements EndpointSourceProvider {

  /** The scheme, {@code etcd}. */
  public static final String SCHEME = "etcd";

  /** Creates the provider (for {@link java.util.ServiceLoader}). */
  public EtcdSourceProvider() {}

  @Override
  public String scheme() {
    return SCHEME;
  }

  /**
   * Creates a source for the target.
   *
   * @throws IllegalArgumentException if the target has no servers or no prefix
   */
  @Override
  public EndpointSource create(URI target) {
    String form = "etcd://host:port[,host:port...]/services/orders/";
    String servers = EndpointSourceProvider.servers(target, form);
    String path = EndpointSourceProvider.path(target, form);
    String[] endpoints = servers.split(",");
    for (int i = 0; i < endpoints.length; i++) {
      endpoints[i] = "http://" + endpoints[i];
    }
    return EtcdSource.owning(Client.builder().endpoints(endpoints).build(), path);
  }
}

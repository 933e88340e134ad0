package dev.ballast.core.source;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Makes {@link EndpointSource}s for one target scheme, found through {@link ServiceLoader}
 * ({@code META-INF/services/dev.ballast.core.source.EndpointSourceProvider}): the lb-discovery
 * modules register {@code zookeeper}, {@code etcd} and {@code ballast-dns}. This is how the
 * gRPC name resolvers, lb-netty and the Spring starter open a source from a target string
 * without depending on any registry's client.
 */
public interface EndpointSourceProvider {

  /** Returns the URI scheme this provider handles, e.g. {@code etcd}. */
  String scheme();

  /**
   * Creates a source for a target of this scheme, not yet started.
   *
   * @throws IllegalArgumentException naming the bad part of the target
   */
  EndpointSource create(URI target);

  /**
   * Creates a source for a target through the provider of its scheme found on the class path,
   * e.g. {@code etcd://127.0.0.1:2379/services/orders}.
   *
   * @throws IllegalArgumentException if the target is not a URI with a scheme, no provider
   *     handles the scheme (the message lists the ones found), or the provider rejects it
   */
  static EndpointSource open(String target) {
    Objects.requireNonNull(target, "target");
    URI uri;
    try {
      uri = new URI(target);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException("target: " + target + " (expected: a URI, e.g. "
          + "etcd://127.0.0.1:2379/services/orders): " + e.getMessage(), e);
    }
    if (uri.getScheme() == null) {
      throw new IllegalArgumentException("target: " + target
          + " (expected: a scheme, e.g. zookeeper://127.0.0.1:2181/services/orders)");
    }
    EndpointSourceProvider p = find(uri.getScheme());
    if (p == null) {
      List<String> known = new ArrayList<>();
      for (EndpointSourceProvider q : ServiceLoader.load(EndpointSourceProvider.class)) {
        known.add(q.scheme());
      }
      throw new IllegalArgumentException("target: " + target + " (no endpoint source for scheme '"
          + uri.getScheme() + "' on the class path; found: " + known + ")");
    }
    return p.create(uri);
  }

  /**
   * Returns a registry target's servers, its authority {@code host:port[,host:port...]}: for
   * providers reading targets like {@code etcd://10.0.0.6:2379,10.0.0.7:2379/services/orders/}.
   *
   * @param form the expected form, for the message, e.g. {@code etcd://host:port/prefix/}
   * @throws IllegalArgumentException if the target has no authority
   */
  static String servers(URI target, String form) {
    String servers = target.getRawAuthority();
    if (servers == null || servers.isEmpty()) {
      throw new IllegalArgumentException("target: " + target + " (expected: " + form + ")");
    }
    return servers;
  }

  /**
   * Returns a registry target's path, at least one segment (a ZooKeeper path, an etcd prefix).
   *
   * @param form the expected form, for the message
   * @throws IllegalArgumentException if the path is empty or {@code /}
   */
  static String path(URI target, String form) {
    String path = target.getPath();
    if (path == null || path.length() < 2) {
      throw new IllegalArgumentException("target: " + target
          + " (expected: a path, as in " + form + ")");
    }
    return path;
  }

  /**
   * Returns the value of a registry target's one query parameter {@code key=VALUE}, or null when
   * the target has no query: for providers taking one option in the query, like ZooKeeper's
   * {@code ?connectionTimeout=2s} or xDS's {@code ?node=id}.
   *
   * @param form the expected form, for the message
   * @throws IllegalArgumentException if the query is anything but {@code key=} and a value
   */
  static String query(URI target, String key, String form) {
    String query = target.getQuery();
    if (query == null) {
      return null;
    }
    String prefix = key + "=";
    if (!query.startsWith(prefix) || query.length() == prefix.length() || query.contains("&")) {
      throw new IllegalArgumentException("query: \"" + query + "\" (expected: " + key
          + "=VALUE, as in " + form + ") in " + target);
    }
    return query.substring(prefix.length());
  }

  /** Returns the provider of a scheme on the class path, or null if there is none. */
  static EndpointSourceProvider find(String scheme) {
    Objects.requireNonNull(scheme, "scheme");
    for (EndpointSourceProvider p : ServiceLoader.load(EndpointSourceProvider.class)) {
      if (p.scheme().equalsIgnoreCase(scheme)) {
        return p;
      }
    }
    return null;
  }
}

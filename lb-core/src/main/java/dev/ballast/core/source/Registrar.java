package dev.ballast.core.source;

import dev.ballast.core.Endpoint;

/**
 * Announces a server in a registry, so that clients watching the service find it: a
 * ZooKeeper ephemeral node, an etcd key under a lease.
 */
public interface Registrar extends AutoCloseable {

  /**
   * Registers an endpoint of a service. The entry lives as long as the handle is open and this
   * process is alive: if the process dies, the registry drops it when the session or lease
   * expires.
   *
   * @throws IllegalArgumentException if the service name is not a valid name for the registry
   * @throws IllegalStateException if the registrar is closed
   */
  Registration register(String service, Endpoint endpoint);

  /** Closes every registration still open, and the registrar's connections if it owns them. */
  @Override
  void close();

  /**
   * Checks a service name as registrars use it, one path segment: non-empty, without {@code /}.
   *
   * @return the name
   * @throws IllegalArgumentException naming the bad name
   */
  static String checkService(String service) {
    java.util.Objects.requireNonNull(service, "service");
    if (service.isEmpty() || service.indexOf('/') >= 0) {
      throw new IllegalArgumentException("service: \"" + service
          + "\" (expected: a non-empty name without '/')");
    }
    return service;
  }
}

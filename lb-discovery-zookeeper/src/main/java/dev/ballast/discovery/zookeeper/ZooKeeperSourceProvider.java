package dev.ballast.discovery.zookeeper;

import dev.ballast.core.config.ValueType;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import java.net.URI;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;

/**
 * The {@code zookeeper} target scheme: {@code
 * zookeeper://host:port[,host:port...]/base/service[?connectionTimeout=10s]} watches the children
 * of {@code /base/service} with a client of its own (session timeout 30 s, connection timeout
 * 10 s unless the query gives another, retries backing off from 100 ms to 5 s), closed with the
 * source. The connection timeout is how long the source waits for ZooKeeper before it reports
 * its failure (a gRPC channel then fails its calls UNAVAILABLE). Registered through {@code
 * META-INF/services}.
 */
public final class ZooKeeperSourceProvider implements EndpointSourceProvider {

  /** The scheme, {@code zookeeper}. */
  public static final String SCHEME = "zookeeper";

  /** Creates the provider (for {@link java.util.ServiceLoader}). */
  public ZooKeeperSourceProvider() {}

  @Override
  public String scheme() {
    return SCHEME;
  }

  /**
   * Creates a source for the target.
   *
   * @throws IllegalArgumentException if the target has no servers or no service path, or a
   *     query other than {@code connectionTimeout=} a duration from 1 ms to 30 s
   */
  @Override
  public EndpointSource create(URI target) {
    String form = "zookeeper://host:port[,host:port...]/services/orders[?connectionTimeout=10s]";
    String servers = EndpointSourceProvider.servers(target, form);
    String path = EndpointSourceProvider.path(target, form);
    ZooKeeperSource.checkPath(path);
    return ZooKeeperSource.owning(
        client(servers, SESSION_TIMEOUT, connectionTimeout(target, form)), path);
  }

  private static Duration connectionTimeout(URI target, String form) {
    String value = EndpointSourceProvider.query(target, "connectionTimeout", form);
    if (value == null) {
      return CONNECTION_TIMEOUT;
    }
    Duration d;
    try {
      d = ValueType.DURATION.parse(value);
    } catch (IllegalArgumentException e) {
      d = null;
    }
    if (d == null || d.compareTo(Duration.ofMillis(1)) < 0
        || d.compareTo(SESSION_TIMEOUT) > 0) {
      throw new IllegalArgumentException("connectionTimeout: " + value
          + " (expected: a duration from 1ms to the session timeout, 30s; such as 2s) in "
          + target);
    }
    return d;
  }

  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);

  /** A client with the defaults above, not started. */
  static CuratorFramework client(String servers, Duration sessionTimeout) {
    return client(servers, sessionTimeout, CONNECTION_TIMEOUT);
  }

  private static CuratorFramework client(String servers, Duration sessionTimeout,
      Duration connectionTimeout) {
    return CuratorFrameworkFactory.newClient(servers, (int) sessionTimeout.toMillis(),
        (int) connectionTimeout.toMillis(), new BoundedExponentialBackoffRetry(100, 5_000, 29));
  }
}

package dev.ballast.discovery.zookeeper;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import java.net.URI;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;

/**
 * The {@code zookeeper} target scheme: {@code zookeeper://host:port[,host:port...]/base/service}
 * watches the children of {@code /base/service} with a client of its own (session timeout
 * 30 s, connection timeout 10 s, retries backing off from 100 ms to 5 s), closed with the
 * source. Registered through {@code META-INF/services}.
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
   * @throws IllegalArgumentException if the target has no servers or no service path
   */
  @Override
  public EndpointSource create(URI target) {
    String form = "zookeeper://host:port[,host:port...]/services/orders";
    String servers = EndpointSourceProvider.servers(target, form);
    String path = EndpointSourceProvider.path(target, form);
    ZooKeeperSource.checkPath(path);
    return ZooKeeperSource.owning(client(servers, Duration.ofSeconds(30)), path);
  }

  /** A client with the defaults above, not started. */
  static CuratorFramework client(String servers, Duration sessionTimeout) {
    return CuratorFrameworkFactory.newClient(servers, (int) sessionTimeout.toMillis(), 10_000,
        new BoundedExponentialBackoffRetry(100, 5_000, 29));
  }
}

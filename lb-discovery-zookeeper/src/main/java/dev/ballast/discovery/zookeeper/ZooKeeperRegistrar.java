package dev.ballast.discovery.zookeeper;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.Registrar;
import dev.ballast.core.source.Registration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;

/**
 * Registers servers in ZooKeeper as ephemeral nodes {@code <basePath>/<service>/<address>}
 * whose data is the endpoint's textual form, as {@link ZooKeeperSource} reads them.
 *
 * <p>Each registration is a Curator {@link PersistentNode}: it re-creates the node after the
 * session expired or the node was deleted, and writes a weight or label change made while the
 * server was unreachable once it is back. The node lives as long as the session: if the process
 * dies, ZooKeeper deletes it when the session times out.
 *
 * <pre>{@code
 * Registrar registrar = ZooKeeperRegistrar.of(curator, "/services");
 * Registration r = registrar.register("orders", Endpoint.parse("10.0.0.7:8080;weight=3;zone=a"));
 * r.update(r.endpoint().withWeight(1)); // drain a little
 * r.close();                            // deregister
 * }</pre>
 */
public final class ZooKeeperRegistrar implements Registrar {

  private final CuratorFramework client;
  private final String basePath;
  private final Duration createTimeout;
  private final boolean ownsClient;
  private final Set<Node> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  // whether the client was ever connected since this registrar was made, for the error message
  private volatile boolean everConnected;

  private ZooKeeperRegistrar(CuratorFramework client, String basePath, Duration createTimeout,
      boolean ownsClient) {
    this.client = Objects.requireNonNull(client, "client");
    this.basePath = ZooKeeperSource.checkPath(basePath);
    this.createTimeout = Objects.requireNonNull(createTimeout, "createTimeout");
    this.ownsClient = ownsClient;
    client.getConnectionStateListenable().addListener((c, state) -> {
      if (state.isConnected()) {
        everConnected = true;
      }
    });
    everConnected = client.getZookeeperClient().isConnected();
  }

  /** As {@link #of(CuratorFramework, String)}, waiting up to {@code createTimeout}. */
  static ZooKeeperRegistrar of(CuratorFramework client, String basePath,
      Duration createTimeout) {
    return new ZooKeeperRegistrar(client, basePath, createTimeout, false);
  }

  /**
   * Returns a registrar under {@code basePath} through a client the caller owns (started if it
   * is not; never closed). {@link #register} waits up to 15 s for the node's first creation.
   *
   * @throws IllegalArgumentException if the base path is not an absolute ZooKeeper path
   */
  public static ZooKeeperRegistrar of(CuratorFramework client, String basePath) {
    return new ZooKeeperRegistrar(client, basePath, Duration.ofSeconds(15), false);
  }

  /**
   * Returns a registrar under {@code basePath} with a client of its own to {@code servers}
   * ({@code host:port[,host:port...]}; session timeout 30 s), closed with the registrar.
   */
  public static ZooKeeperRegistrar connect(String servers, String basePath) {
    return connect(servers, basePath, Duration.ofSeconds(30));
  }

  /**
   * Returns a registrar like {@link #connect(String, String)} with the given session timeout:
   * how long after this process dies its nodes go.
   */
  public static ZooKeeperRegistrar connect(String servers, String basePath,
      Duration sessionTimeout) {
    return new ZooKeeperRegistrar(
        ZooKeeperSourceProvider.client(servers, sessionTimeout), basePath,
        Duration.ofSeconds(15), true);
  }

  /**
   * Creates the node {@code <basePath>/<service>/<address>} (and its parents), waiting up to
   * 15 s for ZooKeeper to take it.
   *
   * @throws IllegalArgumentException if the service name is empty or holds a {@code /}
   * @throws IllegalStateException if the registrar is closed, or ZooKeeper did not take the
   *     node in time (nothing stays registered then)
   */
  @Override
  public Registration register(String service, Endpoint endpoint) {
    Registrar.checkService(service);
    Objects.requireNonNull(endpoint, "endpoint");
    if (closed) {
      throw new IllegalStateException("registrar closed");
    }
    if (client.getState() == CuratorFrameworkState.LATENT) {
      client.start();
    }
    String path = ZKPaths.makePath(basePath, service, endpoint.address());
    Node node = new Node(path, endpoint);
    node.zk.start();
    boolean created;
    try {
      created = node.zk.waitForInitialCreate(createTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      created = false;
    }
    if (!created) {
      node.close();
      throw new IllegalStateException("ZooKeeper did not create " + path + " within "
          + createTimeout.toMillis() + " ms: " + why());
    }
    open.add(node);
    return node;
  }

  // what the connection was doing while the node was not created
  private String why() {
    String servers = client.getZookeeperClient().getCurrentConnectionString();
    if (client.getZookeeperClient().isConnected()) {
      return "connected to " + servers + ", but the create did not succeed (an ACL or quota?)";
    }
    return everConnected ? "the connection to " + servers + " was lost"
        : "no connection to ZooKeeper at " + servers + " was ever made (is it running there?)";
  }

  /** Deletes every node still registered; closes the client if the registrar made it. */
  @Override
  public void close() {
    closed = true;
    for (Node n : open) {
      n.close();
    }
    if (ownsClient) {
      client.close();
    }
  }

  private static byte[] bytes(Endpoint e) {
    return e.toString().getBytes(StandardCharsets.UTF_8);
  }

  private final class Node implements Registration {
    final PersistentNode zk;
    volatile Endpoint endpoint;
    volatile boolean nodeClosed;

    Node(String path, Endpoint endpoint) {
      this.endpoint = endpoint;
      this.zk = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, bytes(endpoint));
    }

    @Override
    public Endpoint endpoint() {
      return endpoint;
    }

    @Override
    public synchronized void update(Endpoint next) {
      Registration.checkUpdate(endpoint, next, nodeClosed);
      try {
        zk.setData(bytes(next));
      } catch (Exception e) {
        throw new IllegalStateException("cannot update " + zk.getActualPath() + ": " + e, e);
      }
      endpoint = next;
    }

    @Override
    public synchronized void close() {
      if (nodeClosed) {
        return;
      }
      nodeClosed = true;
      open.remove(this);
      try {
        zk.close();
      } catch (IOException e) {
        // the node goes with the session anyway
      }
    }
  }
}

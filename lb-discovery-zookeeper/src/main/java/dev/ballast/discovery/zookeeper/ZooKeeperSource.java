package dev.ballast.discovery.zookeeper;

import dev.ballast.core.Endpoint;
import dev.ballast.core.internal.EndpointText;
import dev.ballast.core.source.EndpointSource;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;

/**
 * A service's endpoints in ZooKeeper: the children of a path ({@code /services/orders}), each
 * an ephemeral node whose data is the endpoint's textual form ({@code 10.0.0.1:8080;weight=3;
 * zone=a}) or Curator x-discovery's {@code ServiceInstance} JSON (address, port or sslPort;
 * the payload's {@code weight} and other string members as labels, a status member as the
 * {@code health} label; {@code enabled: false} skips it).
 *
 * <p>Watches through a {@link CuratorCache}: after the first full read, every node created,
 * changed or deleted is pushed as a change. When the connection is suspended or lost, the
 * source reports a failure (the feed keeps the last good set) and passes on nothing until it
 * is back; on reconnection, including with a new session after expiry, the cache re-reads the
 * path and changes made meanwhile arrive as its events. A client that has not connected within
 * its connection timeout of the start is reported as a failure too (Curator says nothing of a
 * first connection that does not come).
 */
public final class ZooKeeperSource implements EndpointSource {

  private final CuratorFramework client;
  private final String path;
  private final boolean ownsClient;
  private final CuratorCache cache;
  private final ConnectionStateListener connectionListener = this::connectionChanged;
  private volatile Listener listener;
  private volatile boolean initialized;
  // false from a suspended or lost connection to the next reconnection, whose full read then
  // stands for everything in between
  private volatile boolean connected = true;
  private volatile boolean closed;

  private ZooKeeperSource(CuratorFramework client, String path, boolean ownsClient) {
    this.client = Objects.requireNonNull(client, "client");
    this.path = checkPath(path);
    this.ownsClient = ownsClient;
    this.cache = CuratorCache.build(client, this.path);
  }

  /**
   * Returns a source watching the children of {@code path} through a client the caller owns
   * (started or not; the source starts it if needed and never closes it).
   *
   * @throws IllegalArgumentException if the path is not an absolute ZooKeeper path
   */
  public static ZooKeeperSource of(CuratorFramework client, String path) {
    return new ZooKeeperSource(client, path, false);
  }

  /** Returns a source that owns its client and closes it when closed. */
  static ZooKeeperSource owning(CuratorFramework client, String path) {
    return new ZooKeeperSource(client, path, true);
  }

  @Override
  public void start(Listener l) {
    this.listener = Objects.requireNonNull(l, "listener");
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> changed(after))
        .forDeletes(this::deleted)
        .forInitialized(this::initialized)
        .build());
    client.getConnectionStateListenable().addListener(connectionListener);
    if (client.getState() == org.apache.curator.framework.imps.CuratorFrameworkState.LATENT) {
      client.start();
    }
    cache.start();
    int timeoutMs = client.getZookeeperClient().getConnectionTimeoutMs();
    CompletableFuture.delayedExecutor(timeoutMs, TimeUnit.MILLISECONDS).execute(() -> {
      if (!closed && !initialized && !client.getZookeeperClient().isConnected()) {
        l.onFailure(new IllegalStateException("ZooKeeper not reached within its connection "
            + "timeout (" + timeoutMs + " ms)"));
      }
    });
  }

  /** Reads a node's data: the textual form or x-discovery's ServiceInstance JSON. */
  @Override
  public Endpoint parse(String key, String value) {
    return entry(value);
  }

  /**
   * Reads a node's data, ASCII blanks and line ends around it ignored: the textual form, or
   * x-discovery's ServiceInstance JSON (bounded in size and depth).
   *
   * @throws IllegalArgumentException naming the bad part
   */
  static Endpoint entry(String value) {
    String v = EndpointText.trimLines(value);
    return v.startsWith("{") ? ServiceInstanceJson.parse(v) : Endpoint.parse(v);
  }

  @Override
  public String name() {
    return "zookeeper:" + path;
  }

  @Override
  public void close() {
    closed = true;
    client.getConnectionStateListenable().removeListener(connectionListener);
    cache.close();
    if (ownsClient) {
      client.close();
    }
  }

  private void initialized() {
    initialized = true;
    listener.onEntries(snapshot());
  }

  private void changed(ChildData node) {
    String key = key(node.getPath());
    if (current() && key != null) {
      listener.onChanges(Map.of(key, text(node)), List.of());
    }
  }

  private void deleted(ChildData node) {
    String key = key(node.getPath());
    if (current() && key != null) {
      listener.onChanges(Map.of(), List.of(key));
    }
  }

  // events are passed on only while connected: what the cache says while the connection is
  // going away (a server shutting down, say) waits for the full read on reconnection
  private boolean current() {
    return initialized && connected && client.getZookeeperClient().isConnected();
  }

  private void connectionChanged(CuratorFramework c, ConnectionState state) {
    Listener l = listener;
    if (l == null) {
      return;
    }
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      connected = false;
      l.onFailure(new IllegalStateException("ZooKeeper connection " + state));
    } else if (state == ConnectionState.RECONNECTED && initialized) {
      connected = true;
      // up again (an empty change says so); the cache re-reads the path on reconnection, and
      // what changed meanwhile arrives as its events
      l.onChanges(Map.of(), List.of());
    }
  }

  private Map<String, String> snapshot() {
    Map<String, String> all = new HashMap<>();
    cache.stream().forEach(node -> {
      String key = key(node.getPath());
      if (key != null) {
        all.put(key, text(node));
      }
    });
    return all;
  }

  // the child's name if the node is a direct child of the path, else null
  private String key(String nodePath) {
    if (nodePath.length() <= path.length() + 1 || !nodePath.startsWith(path)
        || nodePath.charAt(path.length()) != '/' ) {
      return null;
    }
    String name = nodePath.substring(path.length() + 1);
    return name.indexOf('/') >= 0 ? null : name;
  }

  private static String text(ChildData node) {
    byte[] data = node.getData();
    return data == null ? "" : new String(data, StandardCharsets.UTF_8);
  }

  static String checkPath(String path) {
    Objects.requireNonNull(path, "path");
    try {
      return ZKPaths.fixForNamespace(null, path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("path: " + path
          + " (expected: an absolute ZooKeeper path, e.g. /services/orders): " + e.getMessage(), e);
    }
  }
}

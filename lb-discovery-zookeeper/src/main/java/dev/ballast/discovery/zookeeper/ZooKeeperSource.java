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
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

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
 * is back; on reconnection, including with a new session after expiry, the source reads the
 * path's children once and publishes them as one whole listing (not one change per node the
 * cache finds gone or new, which would pass partial sets on), then goes on with the cache's
 * events, each passed on only if newer than what was published for its node (ZooKeeper's
 * creation and modification transaction ids). A client that has not connected within
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
  // by key, the creation and modification transaction ids of what was passed on last. Used
  // only on the client's notification thread (runSafe), where the cache's events, its first
  // read and the re-read on reconnection run one at a time, in order.
  private final Map<String, long[]> passedOn = new HashMap<>();

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
    Map<String, String> all = new HashMap<>();
    passedOn.clear();
    cache.stream().forEach(node -> {
      String key = key(node.getPath());
      if (key != null) {
        all.put(key, text(node.getData()));
        passedOn.put(key, ids(node.getStat()));
      }
    });
    listener.onEntries(all);
  }

  private void changed(ChildData node) {
    String key = key(node.getPath());
    long[] last = key == null ? null : passedOn.get(key);
    long[] now = ids(node.getStat());
    // an event older than the listing published on reconnection, or than a later event, is stale
    if (current() && key != null && (last == null || now[0] > last[0]
        || now[0] == last[0] && now[1] > last[1])) {
      passedOn.put(key, now);
      listener.onChanges(Map.of(key, text(node.getData())), List.of());
    }
  }

  private void deleted(ChildData node) {
    String key = key(node.getPath());
    long[] last = key == null ? null : passedOn.get(key);
    // the deletion of a node passed on, not of an earlier node of the same name
    if (current() && last != null && ids(node.getStat())[0] >= last[0]) {
      passedOn.remove(key);
      listener.onChanges(Map.of(), List.of(key));
    }
  }

  // on reconnection: the path's children read once and published whole; the cache's events
  // are passed on again from then
  private void reread() {
    if (closed) {
      return;
    }
    Map<String, String> entries = new HashMap<>();
    Map<String, long[]> ids = new HashMap<>();
    try {
      for (String child : children()) {
        Stat stat = new Stat();
        try {
          byte[] data = client.getData().storingStatIn(stat).forPath(ZKPaths.makePath(path, child));
          entries.put(child, text(data));
          ids.put(child, ids(stat));
        } catch (KeeperException.NoNodeException gone) {
          // deleted since the listing: left out
        }
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      // still not passing events on: the next reconnection reads again
      listener.onFailure(new IllegalStateException("ZooKeeper re-read of " + path
          + " after reconnection failed: " + e, e));
      return;
    }
    passedOn.clear();
    passedOn.putAll(ids);
    connected = true;
    listener.onEntries(entries);
  }

  private List<String> children() throws Exception {
    try {
      return client.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      return List.of(); // the path itself is gone: nothing is listed
    }
  }

  private static long[] ids(Stat stat) {
    return stat == null ? new long[] {0, 0} : new long[] {stat.getCzxid(), stat.getMzxid()};
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
      // on the notification thread, after the cache's events already queued there (dropped:
      // the read is newer) and before those that follow (checked against it)
      client.runSafe(this::reread);
    }
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

  private static String text(byte[] data) {
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

package dev.ballast.discovery.etcd;

import dev.ballast.core.Endpoint;
import dev.ballast.core.internal.EndpointText;
import dev.ballast.core.source.EndpointSource;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A service's endpoints in etcd: the keys under a prefix ({@code /services/orders/}), each
 * value an endpoint's textual form ({@code 10.0.0.1:8080;weight=3;zone=a}); the key after the
 * prefix names the entry.
 *
 * <p>Reads the prefix, then watches from the revision after that read, so no change between
 * the two is missed; each watch response (all the events of one transaction) is one push.
 * When the watch fails (connection lost, the revision was compacted away), the source reports
 * the failure, keeps nothing of the old watch, and re-reads and re-watches, retrying with a
 * backoff from 200 ms to 5 s until the server answers: changes made meanwhile arrive in that
 * full read.
 */
public final class EtcdSource implements EndpointSource {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(3);

  private final Client client;
  private final String prefix;
  private final ByteSequence prefixBytes;
  private final boolean ownsClient;
  private final Object lock = new Object();
  private Listener listener;
  private Watch.Watcher watcher; // guarded by lock
  private long generation; // guarded by lock: bumped by every resync, so stale callbacks stop
  private long backoffMillis = 200; // guarded by lock
  private boolean closed; // guarded by lock

  private EtcdSource(Client client, String prefix, boolean ownsClient) {
    this.client = Objects.requireNonNull(client, "client");
    this.prefix = checkPrefix(prefix);
    this.prefixBytes = bytes(this.prefix);
    this.ownsClient = ownsClient;
  }

  /**
   * Returns a source watching the keys under {@code prefix} through a client the caller owns
   * (never closed by the source). A prefix not ending in {@code /} gets one, so that {@code
   * /services/orders} does not also match {@code /services/orders-v2/}.
   *
   * @throws IllegalArgumentException if the prefix is empty
   */
  public static EtcdSource of(Client client, String prefix) {
    return new EtcdSource(client, prefix, false);
  }

  /** Returns a source that owns its client and closes it when closed. */
  static EtcdSource owning(Client client, String prefix) {
    return new EtcdSource(client, prefix, true);
  }

  @Override
  public void start(Listener l) {
    synchronized (lock) {
      this.listener = Objects.requireNonNull(l, "listener");
    }
    resync(0);
  }

  @Override
  public String name() {
    return "etcd:" + prefix;
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      generation++;
      if (watcher != null) {
        watcher.close();
        watcher = null;
      }
    }
    if (ownsClient) {
      client.close();
    }
  }

  // reads everything under the prefix, pushes it, and watches from the next revision
  private void resync(long gen) {
    synchronized (lock) {
      if (closed || gen != generation) {
        return;
      }
      if (watcher != null) {
        watcher.close();
        watcher = null;
      }
    }
    client.getKVClient().get(prefixBytes, GetOption.builder().isPrefix(true).build())
        .orTimeout(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((r, e) -> {
          if (e != null) {
            failed(gen, e);
          } else {
            read(gen, r);
          }
        });
  }

  private void read(long gen, GetResponse r) {
    Map<String, String> all = new HashMap<>();
    for (KeyValue kv : r.getKvs()) {
      all.put(key(kv), value(kv));
    }
    synchronized (lock) {
      if (closed || gen != generation) {
        return;
      }
      backoffMillis = 200;
      listener.onEntries(all);
      long next = r.getHeader().getRevision() + 1;
      watcher = client.getWatchClient().watch(prefixBytes,
          WatchOption.builder().isPrefix(true).withRevision(next).build(),
          Watch.listener(resp -> events(gen, resp), e -> failed(gen, e)));
    }
  }

  private void events(long gen, WatchResponse resp) {
    Map<String, String> upserts = new LinkedHashMap<>();
    List<String> removed = new ArrayList<>();
    for (WatchEvent ev : resp.getEvents()) {
      String key = key(ev.getKeyValue());
      if (ev.getEventType() == WatchEvent.EventType.PUT) {
        removed.remove(key);
        upserts.put(key, value(ev.getKeyValue()));
      } else if (ev.getEventType() == WatchEvent.EventType.DELETE) {
        upserts.remove(key);
        removed.add(key);
      }
    }
    synchronized (lock) {
      if (!closed && gen == generation && !(upserts.isEmpty() && removed.isEmpty())) {
        listener.onChanges(upserts, removed);
      }
    }
  }

  private void failed(long gen, Throwable e) {
    long delay;
    long next;
    synchronized (lock) {
      if (closed || gen != generation) {
        return;
      }
      generation++;
      next = generation;
      if (watcher != null) {
        watcher.close(); // no resume of its own: the resync starts a new watch
        watcher = null;
      }
      listener.onFailure(e);
      // a compacted revision is no outage: re-read at once
      delay = e instanceof CompactedException ? 0 : backoffMillis;
      backoffMillis = Math.min(5_000, backoffMillis * 2);
    }
    ResyncTimer.SCHEDULER.schedule(() -> resync(next), delay, TimeUnit.MILLISECONDS);
  }

  /** Reads a value: the textual form, ASCII blanks and line ends around it ignored. */
  @Override
  public Endpoint parse(String key, String value) {
    return entry(value);
  }

  /**
   * Reads a value as {@link #parse} does ({@code etcdctl put} from a file leaves a line end).
   *
   * @throws IllegalArgumentException naming the bad part
   */
  static Endpoint entry(String value) {
    return Endpoint.parse(EndpointText.trimLines(value));
  }

  private String key(KeyValue kv) {
    String k = kv.getKey().toString(StandardCharsets.UTF_8);
    return k.startsWith(prefix) ? k.substring(prefix.length()) : k;
  }

  private static String value(KeyValue kv) {
    return text(kv.getValue());
  }

  /** Decodes a value as etcd holds it (bytes) into what {@link #entry} reads. */
  static String text(ByteSequence value) {
    return value.toString(StandardCharsets.UTF_8);
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static String checkPrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.isEmpty()) {
      throw new IllegalArgumentException(
          "prefix: empty (expected: a key prefix, e.g. /services/orders/)");
    }
    return prefix.endsWith("/") ? prefix : prefix + "/";
  }
}

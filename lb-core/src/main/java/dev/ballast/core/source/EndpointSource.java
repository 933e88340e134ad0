package dev.ballast.core.source;

import dev.ballast.core.Endpoint;
import java.util.Collection;
import java.util.Map;

/**
 * Something that knows a service's endpoints and tells a listener when they change: a
 * registry's watch (ZooKeeper, etcd), a DNS name re-resolved, a file.
 *
 * <p>A source speaks in entries: a key the source names (a ZooKeeper node, an etcd key, an
 * address) and a value in the endpoint's textual form ({@code host:port;weight=3;zone=a}), or
 * another form its {@link #parse} reads. It does not validate them: an {@link EndpointFeed}
 * parses each entry and skips the bad ones, so one malformed entry never hides the others.
 *
 * <p>Implementations call the listener from any thread, one call at a time, and never block in
 * {@link #start}; the listener's methods are quick and never throw.
 */
public interface EndpointSource extends AutoCloseable {

  /**
   * Starts watching and pushing to the listener: a first {@link Listener#onEntries} once the
   * source has read its registry, then changes. Called once.
   */
  void start(Listener listener);

  /**
   * Asks for an early re-read, e.g. after every endpoint failed to connect: a DNS source
   * re-resolves at once. A source that watches its registry is already current and does
   * nothing, the default.
   */
  default void refresh() {}

  /**
   * Reads one entry's value; the default reads lb-core's textual form ({@link Endpoint#parse}).
   *
   * @throws IllegalArgumentException naming the bad part, which the feed logs once and counts
   */
  default Endpoint parse(String key, String value) {
    return Endpoint.parse(value);
  }

  /**
   * Returns a short name for logs and metric tags, e.g. {@code etcd:/services/orders/}.
   */
  String name();

  /** Stops watching and releases the source's connections; no listener call follows. */
  @Override
  void close();

  /** Receives a source's pushes. */
  interface Listener {

    /**
     * The whole set of entries (key to value): entries not in it are gone. The source is up.
     */
    void onEntries(Map<String, String> entries);

    /** Entries added or changed, and keys removed. The source is up. */
    void onChanges(Map<String, String> upserts, Collection<String> removedKeys);

    /**
     * The source lost its registry (connection lost, session expired, a read failed): what it
     * pushed last stays in force until it is back. The cause is for logs.
     */
    void onFailure(Throwable cause);
  }
}

package dev.ballast.grpc;

import dev.ballast.core.Endpoint;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Named endpoint lists that a user's own service discovery (or the Spring starter's properties)
 * publishes and that channels with the target {@code ballast://<name>} follow.
 *
 * <p>{@link #global()} is the registry the {@code ballast} name resolver registered through
 * {@code META-INF/services} reads; a separate instance can be handed to a {@link
 * BallastNameResolverProvider} registered by hand. Every {@link #publish} replaces the list of
 * that name and tells its subscribers, in publication order. Thread-safe.
 *
 * <pre>{@code
 * EndpointRegistry.global().publish("orders", "10.0.0.1:443;zone=a,10.0.0.2:443;zone=b");
 * ManagedChannel ch = ManagedChannelBuilder.forTarget("ballast://orders")
 *     .defaultLoadBalancingPolicy("p2c_peak_ewma").usePlaintext().build();
 * }</pre>
 */
public final class EndpointRegistry {

  private static final EndpointRegistry GLOBAL = new EndpointRegistry();

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /** Creates an empty registry. */
  public EndpointRegistry() {}

  /** Returns the process-wide registry used by the {@code ballast} resolver by default. */
  public static EndpointRegistry global() {
    return GLOBAL;
  }

  /**
   * Publishes the endpoints of a name, replacing any earlier list, and tells the subscribers.
   * An empty list is allowed: channels following the name then fail their calls with
   * UNAVAILABLE until endpoints come back.
   *
   * @throws IllegalArgumentException if the name is not a valid target authority, or two
   *     endpoints share an address
   */
  public void publish(String name, List<Endpoint> endpoints) {
    checkName(name);
    List<Endpoint> copy = List.copyOf(endpoints);
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Endpoint e : copy) {
      if (!seen.add(e.address())) {
        throw new IllegalArgumentException("address: " + e.address() + " listed twice for " + name);
      }
    }
    Entry entry = entries.computeIfAbsent(name, n -> new Entry());
    synchronized (entry) {
      entry.endpoints = copy;
      for (Consumer<List<Endpoint>> l : entry.listeners) {
        l.accept(copy);
      }
    }
  }

  /**
   * Publishes endpoints in lb-core's textual form, e.g. {@code 10.0.0.1:443;weight=3,10.0.0.2:443}.
   *
   * @throws IllegalArgumentException naming the bad entry
   */
  public void publish(String name, String endpoints) {
    publish(name, Endpoint.parseList(endpoints));
  }

  /**
   * Withdraws a name's endpoints if they are still the given ones (equal lists): a later {@link
   * #get} finds none, and a later subscriber gets nothing until the next {@link #publish}.
   * Subscribers are not told: channels already following the name keep their last list, and a
   * refresh of their resolver delivers it again. A publisher that goes away calls this so that what it
   * published does not outlive it, without undoing a newer publication.
   *
   * @return whether the endpoints were withdrawn
   */
  public boolean unpublish(String name, List<Endpoint> endpoints) {
    Objects.requireNonNull(endpoints, "endpoints");
    Entry entry = entries.get(Objects.requireNonNull(name, "name"));
    if (entry == null) {
      return false;
    }
    synchronized (entry) {
      if (!endpoints.equals(entry.endpoints)) {
        return false;
      }
      entry.endpoints = null;
      return true;
    }
  }

  /** Returns the endpoints last published under the name, or empty if none are. */
  public Optional<List<Endpoint>> get(String name) {
    Entry entry = entries.get(name);
    if (entry == null) {
      return Optional.empty();
    }
    synchronized (entry) {
      return Optional.ofNullable(entry.endpoints);
    }
  }

  /**
   * Follows a name: the listener gets the current list at once (if one was published) and then
   * every later one, in order, on the publishing thread. It must be quick and must not throw.
   *
   * @return a handle whose {@link Subscription#close()} stops the calls
   */
  public Subscription subscribe(String name, Consumer<List<Endpoint>> listener) {
    checkName(name);
    Objects.requireNonNull(listener, "listener");
    Entry entry = entries.computeIfAbsent(name, n -> new Entry());
    synchronized (entry) {
      entry.listeners.add(listener);
      if (entry.endpoints != null) {
        listener.accept(entry.endpoints);
      }
    }
    return () -> entry.listeners.remove(listener);
  }

  /** Checks a name as {@link #publish} does: letters, digits, '-', '_' and '.'. */
  static void checkName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name: empty (expected: a target authority, e.g. orders)");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.')) {
        throw new IllegalArgumentException("name: " + name + " (unexpected character '" + c
            + "'; expected letters, digits, '-', '_' or '.')");
      }
    }
  }

  /** A subscription to a name; closing it is idempotent. */
  @FunctionalInterface
  public interface Subscription extends AutoCloseable {
    /** Stops the listener's calls. */
    @Override
    void close();
  }

  private static final class Entry {
    List<Endpoint> endpoints;
    final CopyOnWriteArrayList<Consumer<List<Endpoint>>> listeners = new CopyOnWriteArrayList<>();
  }
}

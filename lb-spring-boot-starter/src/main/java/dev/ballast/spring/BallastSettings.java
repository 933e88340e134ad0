package dev.ballast.spring;

import dev.ballast.spring.internal.ClientKeys;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * The checked settings of every client configured under {@code ballast.clients.}, each made of
 * {@code ballast.defaults.} overridden by the client's own properties. Made once at start-up by
 * the auto-configuration; a bad property stops the start with an {@link
 * InvalidBallastPropertyException}. Immutable.
 */
public final class BallastSettings {

  private final Map<String, ClientSettings> clients;

  /** Creates the settings from already checked client settings, kept in the given order. */
  public BallastSettings(Collection<ClientSettings> clients) {
    Map<String, ClientSettings> map = new LinkedHashMap<>();
    for (ClientSettings c : clients) {
      if (map.put(c.name(), c) != null) {
        throw new IllegalArgumentException("client " + c.name() + " given twice");
      }
    }
    this.clients = Collections.unmodifiableMap(map);
  }

  /**
   * Binds and checks the clients named in the properties: for each, {@code ballast.defaults.}
   * first, then {@code ballast.clients.<name>.} over it. A key under either that is no property
   * of {@link BallastProperties.Client} is an error. A client that sets no protocol (nor does
   * {@code ballast.defaults.protocol}) and that a Spring Boot gRPC channel targets ({@code
   * spring.grpc.client.channel.<channel>.target=ballast://<name>}) is gRPC-only ({@link
   * ClientSettings.Protocol#GRPC}).
   *
   * @param binder the binder over the application's environment
   * @param properties the bound properties, which name the clients
   * @throws InvalidBallastPropertyException naming the first bad property
   */
  public static BallastSettings bind(Binder binder, BallastProperties properties) {
    // The defaults alone must be valid, so that a bad value a client inherits is reported
    // under ballast.defaults, where it was written.
    BallastProperties.Client defaults = new BallastProperties.Client();
    ClientKeys.bindStrictly(binder, ConfigurationPropertyName.of("ballast.defaults"), defaults);
    ClientSettings.from("defaults", "ballast.defaults", defaults, false);
    boolean defaultProtocol = !binder.bind("ballast.defaults.protocol", String.class).isBound();
    Set<String> grpcTargets = defaultProtocol ? grpcTargets(binder) : Set.of();
    Map<String, ClientSettings> result = new LinkedHashMap<>();
    for (String name : properties.getClients().keySet()) {
      ConfigurationPropertyName prefix = ConfigurationPropertyName.of(prefix(name));
      BallastProperties.Client client = new BallastProperties.Client();
      binder.bind("ballast.defaults", Bindable.ofInstance(client));
      ClientKeys.bindStrictly(binder, prefix, client);
      if (grpcTargets.contains(name)
          && !binder.bind(prefix.append("protocol"), Bindable.of(String.class)).isBound()) {
        client.setProtocol("grpc");
      }
      result.put(name, ClientSettings.from(name, prefix.toString(), client, true));
    }
    return new BallastSettings(result.values());
  }

  /** Returns the client names that Spring Boot gRPC channels target as ballast://name. */
  private static Set<String> grpcTargets(Binder binder) {
    Set<String> names = new HashSet<>();
    binder.bind("spring.grpc.client.channel", Bindable.mapOf(String.class, ChannelTarget.class))
        .ifBound(channels -> channels.values().forEach(c -> {
          String target = c.getTarget();
          if (target != null && target.startsWith("ballast://")) {
            names.add(target.substring("ballast://".length()));
          }
        }));
    return names;
  }

  /** The one property read from a Spring Boot gRPC channel entry. */
  static final class ChannelTarget {
    private String target;

    String getTarget() {
      return target;
    }

    void setTarget(String target) {
      this.target = target;
    }
  }

  /** Returns the settings of a client. @throws NoSuchElementException naming the known ones */
  public ClientSettings get(String name) {
    ClientSettings c = clients.get(name);
    if (c == null) {
      throw new NoSuchElementException("client: " + name + " (expected: one of "
          + clients.keySet() + ", configured under ballast.clients.<name>)");
    }
    return c;
  }

  /** Returns the client names, in configuration order. */
  public Set<String> names() {
    return clients.keySet();
  }

  /** Returns every client's settings by name, in configuration order. */
  public Map<String, ClientSettings> clients() {
    return clients;
  }

  /**
   * Returns the property prefix of a client: {@code ballast.clients.orders}, or the bracketed
   * {@code ballast.clients[orders.eu]} for a name that is not a plain lowercase element (a plain
   * name must not be bracketed: Spring compares {@code [order-svc]} and {@code order-svc} as
   * different names).
   */
  static String prefix(String name) {
    checkName(name);
    return name.matches("[a-z0-9][a-z0-9-]*")
        ? "ballast.clients." + name
        : "ballast.clients[" + name + "]";
  }

  private static void checkName(String name) {
    String expected = "a name of letters, digits, '-', '_' or '.', e.g. orders";
    if (name.isEmpty()) {
      throw new InvalidBallastPropertyException("ballast.clients", name, "empty client name",
          expected);
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.')) {
        throw new InvalidBallastPropertyException("ballast.clients[" + name + "]", name,
            "client name has unexpected character '" + c + "'", expected);
      }
    }
  }

  @Override
  public String toString() {
    return "BallastSettings" + clients.keySet();
  }
}

package dev.ballast.spring;

import java.util.Collection;
import java.util.Collections;
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
   * first, then {@code ballast.clients.<name>.} over it.
   *
   * @param binder the binder over the application's environment
   * @param properties the bound properties, which name the clients
   * @throws InvalidBallastPropertyException naming the first bad property
   */
  public static BallastSettings bind(Binder binder, BallastProperties properties) {
    // The defaults alone must be valid, so that a bad value a client inherits is reported
    // under ballast.defaults, where it was written.
    ClientSettings.from("defaults", "ballast.defaults", properties.getDefaults(), false);
    Map<String, ClientSettings> result = new LinkedHashMap<>();
    for (String name : properties.getClients().keySet()) {
      String prefix = prefix(name);
      BallastProperties.Client client = new BallastProperties.Client();
      binder.bind("ballast.defaults", Bindable.ofInstance(client));
      binder.bind(ConfigurationPropertyName.of(prefix), Bindable.ofInstance(client));
      result.put(name, ClientSettings.from(name, prefix, client, true));
    }
    return new BallastSettings(result.values());
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

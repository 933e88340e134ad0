package dev.ballast.spring;

import dev.ballast.core.config.OptionException;
import dev.ballast.spring.internal.PropertyKeys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The checked settings of every client configured under {@code ballast.clients.}, each made of
 * {@code ballast.defaults.} overridden by the client's own properties. Made once at start-up by
 * the auto-configuration: every property under {@code ballast.} must be one Ballast knows (an
 * unknown one stops start-up naming the nearest known one), and every value is decoded by the
 * configuration model's codec ({@link dev.ballast.core.config.OptionSet}), which names a bad
 * one. Values may hold {@code ${...}} placeholders, resolved from the environment as Spring
 * resolves its own properties. Immutable.
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
   * Checks every {@code ballast.} key, then binds and checks the clients named in the properties:
   * for each, {@code ballast.defaults.} first, then {@code ballast.clients.<name>.} over it. A
   * client that sets no protocol (nor does {@code ballast.defaults.protocol}) and that a Spring
   * Boot gRPC channel targets ({@code spring.grpc.client.channel.<channel>.target=ballast://
   * <name>}) is gRPC-only ({@link ClientSettings.Protocol#GRPC}).
   *
   * @throws InvalidBallastPropertyException naming the first bad property
   */
  public static BallastSettings bind(Environment environment) {
    Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
    Binder binder = binder(environment);
    PropertyKeys keys = new PropertyKeys(PropertyKeys.clientOptions());
    Set<String> names = keys.check(sources);
    // The defaults alone must be valid, so that a bad value a client inherits is reported
    // under ballast.defaults, where it was written.
    Map<String, Object> defaults = keys.read(binder, "ballast.defaults");
    decode("defaults", "ballast.defaults", defaults, defaults, Map.of(), false, null);
    // Spring Boot gRPC's own keys, read as Spring reads them (an unresolvable placeholder kept)
    Set<String> grpcTargets = defaults.containsKey("protocol") ? Set.of()
        : grpcTargets(Binder.get(environment));
    List<ClientSettings> result = new ArrayList<>();
    for (String name : names) {
      String prefix = prefix(name);
      Map<String, Object> own = keys.read(binder, prefix);
      Map<String, Object> merged = new LinkedHashMap<>(defaults);
      own.forEach((k, v) -> merged.merge(k, v, BallastSettings::override));
      result.add(decode(name, prefix, merged, own, defaults, true,
          grpcTargets.contains(name) ? ClientSettings.Protocol.GRPC : null));
    }
    return new BallastSettings(result);
  }

  /**
   * The binder of {@code ballast.} properties: placeholders ({@code ${CALL_TIMEOUT:2s}}) resolve
   * as in Spring's own properties, and one that resolves to nothing without a default stops
   * start-up naming it (Spring's own binder would keep the text, which a free-text option then
   * takes as its value); {@code \${...}} stays literal text.
   */
  static Binder binder(Environment environment) {
    return new Binder(ConfigurationPropertySources.get(environment), value -> value instanceof
        String s ? environment.resolveRequiredPlaceholders(s) : value);
  }

  private static ClientSettings decode(String name, String prefix, Map<String, Object> options,
      Map<String, Object> own, Map<String, Object> defaults, boolean requireEndpoints,
      ClientSettings.Protocol inferred) {
    try {
      ClientSettings s = ClientSettings.decode(name, options, requireEndpoints, inferred);
      if (s.protocol() != ClientSettings.Protocol.GRPC && ClassUtils.isPresent(
          "dev.ballast.netty.ClientOptions", BallastSettings.class.getClassLoader())) {
        // lb-netty's options are checked now, by the builder that will take them
        dev.ballast.netty.ClientOptions.CLIENT.apply(dev.ballast.netty.BallastClient.framed(),
            s.clientOptions());
      }
      if (s.protocol() == ClientSettings.Protocol.GRPC && ClassUtils.isPresent(
          "dev.ballast.grpc.EndpointRegistry", BallastSettings.class.getClassLoader())) {
        // and a gRPC client's service config, by the policies that will parse it
        BallastGrpcEndpoints.check(s);
      }
      return s;
    } catch (OptionException e) {
      String option = e.option();
      String top = option.contains(".") ? option.substring(0, option.indexOf('.')) : option;
      // reported where it was written: under the defaults if the client took it from there
      boolean inherited = own.keySet().stream()
          .noneMatch(k -> k.equals(option) || k.startsWith(top + "."))
          && defaults.keySet().stream()
          .anyMatch(k -> k.equals(option) || k.startsWith(top + "."));
      throw PropertyKeys.invalid(inherited ? "ballast.defaults" : prefix, e,
          PropertyKeys.given(options, option));
    }
  }

  /** A client's value replaces the default, but maps (labels) are merged key by key. */
  private static Object override(Object defaultValue, Object value) {
    if (defaultValue instanceof Map<?, ?> d && value instanceof Map<?, ?> v) {
      Map<Object, Object> m = new LinkedHashMap<>(d);
      m.putAll(v);
      return m;
    }
    return value;
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
    String expected = "a name of ASCII letters, digits, '-', '_' or '.', e.g. orders";
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '_' || c == '.')) {
        throw new InvalidBallastPropertyException("ballast.clients[" + name + "]", name,
            "client name has unexpected character '" + c + "'", expected);
      }
    }
    if (name.isEmpty()) {
      throw new InvalidBallastPropertyException("ballast.clients", name, "empty client name",
          expected);
    }
    return name.matches("[a-z0-9][a-z0-9-]*")
        ? "ballast.clients." + name
        : "ballast.clients[" + name + "]";
  }

  @Override
  public String toString() {
    return "BallastSettings" + clients.keySet();
  }
}

package dev.ballast.spring.internal;

import dev.ballast.core.config.CoreOptions;
import dev.ballast.core.config.Names;
import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.ValueType;
import dev.ballast.spring.InvalidBallastPropertyException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;

/**
 * Every property under {@code ballast.} is known or stops start-up: the keys a client takes are
 * the model's option names in Spring's dashed form ({@code slowStart.window} is {@code
 * slow-start.window}; Spring's relaxed binding takes {@code slowStart.window} and {@code
 * BALLAST_DEFAULTS_SLOWSTART_WINDOW} too), read with Spring's {@link Binder}; an unknown key is
 * refused naming the nearest known one, a bad value with the model's own error.
 */
public final class PropertyKeys {

  /** The switches and settings outside the clients, by group. */
  private static final Map<String, List<String>> TOP = new LinkedHashMap<>();

  static {
    TOP.put("clients", List.of());
    TOP.put("defaults", List.of());
    TOP.put("metrics", List.of("enabled"));
    TOP.put("grpc", List.of("enabled"));
    TOP.put("http-client", List.of("enabled"));
    TOP.put("http-clients", List.of("enabled"));
    TOP.put("spring-cloud", List.of("balancer"));
  }

  private final List<Option<?, ?, ?>> options;

  /** Creates the checks of a client's keys: the options it takes. */
  public PropertyKeys(List<Option<?, ?, ?>> options) {
    this.options = List.copyOf(options);
  }

  /** Returns a canonical name in Spring's dashed form: {@code slow-start.window}. */
  public static String dashed(String name) {
    StringBuilder b = new StringBuilder();
    for (char c : name.toCharArray()) {
      if (Character.isUpperCase(c)) {
        b.append('-').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /**
   * Reads the options set under a prefix with Spring's binder, by canonical name: text, or a list
   * or map of text for the options that hold one.
   */
  public Map<String, Object> read(Binder binder, String prefix) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Option<?, ?, ?> o : options) {
      String property = prefix + "." + dashed(o.name());
      ValueType<?> t = o.type();
      Bindable<?> bindable = isList(t) ? Bindable.listOf(String.class)
          : isMap(t) ? Bindable.mapOf(String.class, String.class)
          : Bindable.of(String.class);
      binder.bind(property, bindable).ifBound(v -> out.put(o.name(), v));
    }
    return out;
  }

  /** Whether the option's value is a map (properties {@code <option>.<key>=<value>}). */
  private static boolean isMap(ValueType<?> t) {
    return t == ValueType.STRING_MAP || t == CoreOptions.ZONE_SHARES
        || t == CoreOptions.POLICY_OPTIONS;
  }

  /** Returns the model's refusal as the starter's exception, naming the full property. */
  public static InvalidBallastPropertyException invalid(String prefix, OptionException e,
      Object value) {
    String problem = e.problem();
    int open = problem.indexOf(" (");
    String inner = open < 0 ? "" : problem.substring(open + 2, problem.length() - 1);
    int expected = inner.indexOf("expected: ");
    String reason = open < 0 ? problem
        : inner.startsWith("did you mean") ? inner.substring(0, inner.indexOf('?') + 1)
        : problem.startsWith("unknown") ? problem.substring(0, open) : "invalid value";
    return new InvalidBallastPropertyException(prefix + "." + dashed(e.option()),
        value instanceof String || value == null ? value : ValueType.show(value), reason,
        expected < 0 ? "a valid value" : inner.substring(expected + "expected: ".length()));
  }

  /**
   * Checks every property under {@code ballast.} in the sources, and returns the names of the
   * clients they configure ({@code ballast.clients.<name>.}), in order of appearance.
   *
   * @throws InvalidBallastPropertyException naming the first unknown key and the nearest
   */
  public java.util.Set<String> check(Iterable<ConfigurationPropertySource> sources) {
    java.util.Set<String> clients = new java.util.LinkedHashSet<>();
    ConfigurationPropertyName root = ConfigurationPropertyName.of("ballast");
    ConfigurationPropertyName clientsRoot = ConfigurationPropertyName.of("ballast.clients");
    for (ConfigurationPropertySource source : sources) {
      if (!(source instanceof IterableConfigurationPropertySource it)) {
        continue;
      }
      for (ConfigurationPropertyName name : it) {
        if (clientsRoot.isAncestorOf(name) && name.getNumberOfElements() > 3) {
          clients.add(name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL));
        }
        if (root.isAncestorOf(name)) {
          String nearest = nearestIfUnknown(name);
          if (nearest != null) {
            ConfigurationProperty p = source.getConfigurationProperty(name);
            throw new InvalidBallastPropertyException(name.toString(),
                p == null ? null : p.getValue(), "unknown property" + (nearest.isEmpty() ? ""
                    : ", did you mean " + nearest + "?"), "a property Ballast knows; see "
                    + "the client options (dev.ballast.netty.ClientOptions)");
          }
        }
      }
    }
    return clients;
  }

  /** Returns null if the name is known, else the nearest known name, or "" if none is near. */
  private String nearestIfUnknown(ConfigurationPropertyName name) {
    List<String> e = new ArrayList<>();
    for (int i = 0; i < name.getNumberOfElements(); i++) {
      e.add(name.getElement(i, ConfigurationPropertyName.Form.DASHED));
    }
    String top = e.size() > 1 ? e.get(1) : "";
    String knownTop = TOP.keySet().stream().filter(t -> Names.same(t, top)).findFirst()
        .orElse(null);
    if (knownTop == null) {
      String near = Names.nearest(top, TOP.keySet());
      return near == null ? "" : "ballast." + near + join(e, 2);
    }
    int from = knownTop.equals("clients") ? 3 : 2;
    if (e.size() <= from) {
      return knownTop.equals("clients") && e.size() == 3 ? null : "";
    }
    List<String> rest = e.subList(from, e.size());
    String client = from == 3 ? name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL) : null;
    String prefix = client == null ? "ballast." + knownTop
        : "ballast.clients" + (client.matches("[a-z0-9][a-z0-9-]*") ? "." + client
            : "[" + client + "]");
    if (!TOP.get(knownTop).isEmpty()) {
      String key = String.join(".", rest);
      if (TOP.get(knownTop).stream().anyMatch(k -> Names.same(k, key))) {
        return null;
      }
      String near = Names.nearest(key, TOP.get(knownTop));
      return near == null ? "" : prefix + "." + near;
    }
    if (knownOption(rest)) {
      return null;
    }
    if (rest.size() > 1 && knownOption(rest.subList(1, rest.size()))) {
      // a group that is not one (hash.key-hash): the option without it
      return prefix + "." + String.join(".", rest.subList(1, rest.size()));
    }
    List<String> dashedNames = options.stream().map(o -> dashed(o.name())).toList();
    String near = Names.nearest(String.join(".", rest), dashedNames);
    return near == null ? "" : prefix + "." + near;
  }

  private boolean knownOption(List<String> rest) {
    for (Option<?, ?, ?> o : options) {
      String wanted = Names.normalize(o.name().replace(".", ""));
      StringBuilder have = new StringBuilder();
      for (int j = 0; j < rest.size(); j++) {
        have.append(Names.normalize(rest.get(j)));
        if (have.toString().equals(wanted)) {
          ValueType<?> t = o.type();
          boolean collection = isList(t) || isMap(t);
          if (j == rest.size() - 1 || collection) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean isList(ValueType<?> t) {
    return t == ValueType.STRINGS || t == ValueType.KEY_SETS
        || t == dev.ballast.core.config.CoreOptions.ENDPOINTS;
  }

  private static String join(List<String> e, int from) {
    return from >= e.size() ? "" : "." + String.join(".", e.subList(from, e.size()));
  }
}

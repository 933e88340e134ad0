package dev.ballast.spring.internal;

import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.Names;
import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.ValueType;
import dev.ballast.spring.ClientSettings;
import dev.ballast.spring.InvalidBallastPropertyException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.util.ClassUtils;

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
    TOP.put("spring-cloud", List.of("balancer", "policy.*")); // policy.*: a policy's own
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
      try {
        binder.bind(property, bindable).ifBound(v -> out.put(o.name(), v));
      } catch (BindException e) {
        throw unbound(property, e);
      }
    }
    return out;
  }

  /**
   * Spring's failure to bind a list (an index after a gap, {@code endpoints[100000]} alone, or
   * past {@code int}) as the starter's exception, naming the first element left unbound.
   */
  private static InvalidBallastPropertyException unbound(String property, BindException e) {
    String expected = "list indexes counted from 0 without a gap, e.g. " + property + "[0], "
        + property + "[1]";
    if (e.getCause() instanceof UnboundConfigurationPropertiesException u
        && !u.getUnboundProperties().isEmpty()) {
      ConfigurationProperty first = u.getUnboundProperties().iterator().next();
      return new InvalidBallastPropertyException(written(first.getName()), first.getValue(),
          "list element left unbound: no element before it at index 0", expected);
    }
    Throwable cause = e.getCause() == null ? e : e.getCause();
    return new InvalidBallastPropertyException(written(e.getName()), null,
        "cannot be bound: " + cause.getMessage(), expected);
  }

  /** Returns a property name as written: its elements in their original form. */
  static String written(ConfigurationPropertyName name) {
    return written(name, name.getNumberOfElements());
  }

  /** Returns the first {@code count} elements of a property name as written. */
  private static String written(ConfigurationPropertyName name, int count) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < count; i++) {
      String e = name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
      boolean indexed = name.chop(i + 1).isLastElementIndexed();
      b.append(indexed ? "[" + e + "]" : (i == 0 ? "" : ".") + e);
    }
    return b.toString();
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
    String wanted = expected < 0 ? "a valid value"
        : inner.substring(expected + "expected: ".length());
    if (problem.startsWith("unknown")) { // a key inside a value (policy.*): names, as written
      reason = DID_YOU_MEAN.matcher(reason).replaceAll(m -> "did you mean "
          + dashed(m.group(1)) + "?");
      wanted = wanted.startsWith("one of ") ? "one of " + Arrays.stream(
          wanted.substring("one of ".length()).split(", ")).map(PropertyKeys::dashed)
          .collect(Collectors.joining(", ")) : wanted;
    }
    return new InvalidBallastPropertyException(prefix + "." + dashed(e.option()),
        value instanceof String || value == null ? value : ValueType.show(value), reason,
        springNames(wanted));
  }

  private static final Pattern DID_YOU_MEAN = Pattern.compile("did you mean (\\S+)\\?");
  private static final Pattern CAMEL_WORD = Pattern.compile("\\b[a-z][a-z0-9]*[A-Z]\\w*\\b");
  // a client option's camel-case parts (maxRingSize, fallbackPolicy), as a refusal names them
  private static final Set<String> OPTION_WORDS = optionWords();

  /**
   * Returns a model's text with the client options it names in their property form: {@code <=
   * max-ring-size 4096}, not {@code <= maxRingSize 4096}; other words (a label key, a host) as
   * they are.
   */
  public static String springNames(String text) {
    return CAMEL_WORD.matcher(text).replaceAll(m -> OPTION_WORDS.contains(m.group())
        ? dashed(m.group()) : m.group());
  }

  /**
   * Returns the value given for an option by canonical name, in any of its forms ({@code
   * spill-percent}, {@code spill_percent}), inside the value of the option that holds it for a
   * key such as {@code policy.spillPercent}; null if none.
   */
  public static Object given(Map<String, ?> options, String option) {
    for (Map.Entry<String, ?> e : options.entrySet()) {
      if (Names.same(e.getKey(), option)) {
        return e.getValue();
      }
    }
    int dot = option.indexOf('.');
    if (dot > 0 && given(options, option.substring(0, dot)) instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, ?> inner = (Map<String, ?>) m;
      return given(inner, option.substring(dot + 1));
    }
    return null;
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
      RawNames.check(source.getUnderlyingSource());
      Map<String, Form> forms = new java.util.HashMap<>();
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
                    + (ofAClient(nearest.isEmpty() ? name.toString() : nearest)
                        ? "the client options (dev.ballast.netty.ClientOptions)"
                        : "docs/spring.md, or your IDE's completion"));
          }
          once(name, source, forms);
        }
      }
    }
    return clients;
  }

  /** Returns every option a client takes: the starter's, lb-core's and, if present, lb-netty's. */
  public static List<Option<?, ?, ?>> clientOptions() {
    Map<String, Option<?, ?, ?>> all = new LinkedHashMap<>();
    ClientSettings.STARTER_OPTIONS.options().forEach(o -> all.put(o.name(), o));
    ClientSettings.CORE_OPTIONS.options().forEach(o -> all.put(o.name(), o));
    if (ClassUtils.isPresent("dev.ballast.netty.ClientOptions",
        PropertyKeys.class.getClassLoader())) {
      dev.ballast.netty.ClientOptions.CLIENT.options().forEach(o -> all.putIfAbsent(o.name(), o));
    }
    return new ArrayList<>(all.values());
  }

  private static Set<String> optionWords() {
    return clientOptions().stream().flatMap(o -> Arrays.stream(o.name().split("\\.")))
        .filter(w -> !w.equals(dashed(w))).collect(Collectors.toUnmodifiableSet());
  }

  private static boolean ofAClient(String property) {
    return property.startsWith("ballast.clients.") || property.startsWith("ballast.clients[")
        || property.startsWith("ballast.defaults.");
  }

  /**
   * Refuses an option given in two forms in one property source ({@code decay-time} and {@code
   * decayTime}; a nested YAML map and a dotted key; a list whole and by index), of which Spring
   * would silently keep one. {@code forms} maps each option already seen in the source (by
   * client, canonical name and map key) to its form as written. Sources of different
   * precedence (a command line over a file) still override each other, as in Spring.
   */
  private void once(ConfigurationPropertyName name, ConfigurationPropertySource source,
      Map<String, Form> forms) {
    String top = name.getElement(1, ConfigurationPropertyName.Form.DASHED);
    int from = Names.same("clients", top) ? 3 : Names.same("defaults", top) ? 2 : -1;
    if (from < 0 || name.getNumberOfElements() <= from) {
      return;
    }
    List<String> rest = dashedElements(name, from);
    for (Option<?, ?, ?> o : options) {
      int end = optionEnd(o, rest);
      if (end < 0) {
        continue;
      }
      int next = from + end + 1; // the element after the option's: an index, a map key
      String scope = from == 3
          ? "clients." + name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL)
          : "defaults";
      String key = scope + "/" + o.name()
          + (isMap(o.type()) ? "/" + String.join(".", rest.subList(end + 1, rest.size())) : "");
      boolean indexed = next < name.getNumberOfElements() && name.isNumericIndex(next);
      Form form = new Form(written(name, next) + (indexed ? "[]" : ""),
          written(name, name.getNumberOfElements()));
      Form first = forms.putIfAbsent(key, form);
      if (first != null && !first.option().equals(form.option())) {
        ConfigurationProperty p = source.getConfigurationProperty(name);
        throw new InvalidBallastPropertyException(form.property(),
            p == null ? null : p.getValue(), "given twice, as " + first.property() + " and as "
                + form.property() + ", in one property source (Spring would keep one of them)",
            "each option once, in one form, e.g. " + dashed(o.name()));
      }
      return;
    }
  }

  /** An option's form as written ({@code decayTime}, {@code endpoints[]}), and the property. */
  private record Form(String option, String property) {}

  /** Returns null if the name is known, else the nearest known name, or "" if none is near. */
  private String nearestIfUnknown(ConfigurationPropertyName name) {
    List<String> e = dashedElements(name, 0);
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
      if (TOP.get(knownTop).stream().anyMatch(k -> Names.same(k, key) || k.endsWith(".*")
          && rest.size() > 1 && Names.same(k.substring(0, k.length() - 2), rest.get(0)))) {
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
    return options.stream().anyMatch(o -> optionEnd(o, rest) >= 0);
  }

  /**
   * Returns the index of the option's last element in {@code rest} (the elements after the
   * client), or -1 if they do not name the option: all of them, or, for a list or a map, the
   * first ones.
   */
  private static int optionEnd(Option<?, ?, ?> o, List<String> rest) {
    String wanted = Names.normalize(o.name().replace(".", ""));
    StringBuilder have = new StringBuilder();
    for (int j = 0; j < rest.size(); j++) {
      have.append(Names.normalize(rest.get(j)));
      if (have.toString().equals(wanted)) {
        return j == rest.size() - 1 || isList(o.type()) || isMap(o.type()) ? j : -1;
      }
    }
    return -1;
  }

  private static List<String> dashedElements(ConfigurationPropertyName name, int from) {
    List<String> e = new ArrayList<>();
    for (int i = from; i < name.getNumberOfElements(); i++) {
      e.add(name.getElement(i, ConfigurationPropertyName.Form.DASHED));
    }
    return e;
  }

  private static boolean isList(ValueType<?> t) {
    return t == ValueType.STRINGS || t == ValueType.KEY_SETS
        || t == dev.ballast.core.policy.CoreOptions.ENDPOINTS;
  }

  private static String join(List<String> e, int from) {
    return from >= e.size() ? "" : "." + String.join(".", e.subList(from, e.size()));
  }
}

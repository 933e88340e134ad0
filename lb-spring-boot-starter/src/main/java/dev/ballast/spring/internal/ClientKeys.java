package dev.ballast.spring.internal;

import dev.ballast.spring.BallastProperties;
import dev.ballast.spring.InvalidBallastPropertyException;
import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * Strict binding of one client's properties: a key under the client's prefix that no property of
 * {@link BallastProperties.Client} binds (a typo, a property of another version) stops start-up
 * naming it, with the closest known key and the keys known at its level. The known keys are read
 * from the class itself, so a property added there is known at once.
 */
public final class ClientKeys {

  /** Known keys in dashed form by level: "" holds the top level, "pool" the pool's, ... */
  private static final Map<String, List<String>> KNOWN = new TreeMap<>();

  static {
    collect(BallastProperties.Client.class, "");
  }

  private ClientKeys() {}

  /**
   * Binds the properties under {@code prefix} into {@code client}, failing on any key left
   * unbound.
   *
   * @throws InvalidBallastPropertyException naming the first unknown key
   */
  public static void bindStrictly(
      Binder binder, ConfigurationPropertyName prefix, BallastProperties.Client client) {
    try {
      binder.bind(prefix, Bindable.ofInstance(client), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
    } catch (BindException e) {
      UnboundConfigurationPropertiesException unbound = unbound(e);
      if (unbound == null) {
        throw e;
      }
      ConfigurationProperty first = unbound.getUnboundProperties().stream()
          .min(Comparator.comparing(ConfigurationProperty::getName)).orElseThrow();
      throw unknown(prefix, first);
    }
  }

  private static UnboundConfigurationPropertiesException unbound(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnboundConfigurationPropertiesException u) {
        return u;
      }
    }
    return null;
  }

  private static InvalidBallastPropertyException unknown(
      ConfigurationPropertyName prefix, ConfigurationProperty property) {
    String full = property.getName().toString();
    String key = full.substring(prefix.toString().length() + 1);
    // The level the key is unknown at: its known groups walked from the top.
    String level = "";
    String rest = key;
    for (int dot = rest.indexOf('.'); dot > 0 && KNOWN.containsKey(join(level,
        rest.substring(0, dot))); dot = rest.indexOf('.')) {
      level = join(level, rest.substring(0, dot));
      rest = rest.substring(dot + 1);
    }
    List<String> known = KNOWN.get(level);
    // Under an unknown group (discovery.zookeper.connect), the group's name is the typo.
    int dot = rest.indexOf('.');
    String closest = closest(dot > 0 ? rest.substring(0, dot) : rest, known);
    String reason = closest == null ? "unknown property"
        : "unknown property, did you mean " + prefix + "." + join(level, closest) + "?";
    String where = level.isEmpty() ? "a client" : level;
    return new InvalidBallastPropertyException(full, property.getValue(), reason,
        "one of the properties of " + where + ": " + String.join(", ", known));
  }

  private static String join(String level, String key) {
    return level.isEmpty() ? key : level + "." + key;
  }

  /** Returns the known key nearest to {@code key} by edit distance, or null if none is near. */
  private static String closest(String key, List<String> known) {
    String best = null;
    int bestDistance = Math.max(2, key.length() / 3) + 1;
    for (String k : known) {
      int d = distance(key, k.replace(".*", ""));
      if (d < bestDistance) {
        best = k.replace(".*", "");
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(substitute, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** Records the bean properties of a type; nested groups (the starter's types) get a level. */
  private static void collect(Class<?> type, String level) {
    List<String> keys = new ArrayList<>();
    for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
      if (d.getReadMethod() == null || d.getName().equals("class")) {
        continue;
      }
      String key = DataObjectPropertyName.toDashedForm(d.getName());
      Class<?> t = d.getPropertyType();
      if (t.getPackage() == BallastProperties.class.getPackage() && !t.isEnum()) {
        collect(t, join(level, key));
        keys.add(key + ".*");
      } else {
        keys.add(key);
      }
    }
    KNOWN.put(level, List.copyOf(keys));
  }
}

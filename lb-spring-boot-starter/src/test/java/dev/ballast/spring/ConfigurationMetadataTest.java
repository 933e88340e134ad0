package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The configuration metadata the processor generated documents every property, and the defaults
 * it states are the ones the starter really uses.
 */
class ConfigurationMetadataTest {

  private static final Pattern OBJECT = Pattern.compile("\\{[^{}]*\\}");
  private static final Pattern FIELD = Pattern.compile("\"(\\w+)\"\\s*:\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|[^,\\n}]+)");

  @Test
  void everyPropertyHasADescriptionAndEveryScalarADefault() throws IOException {
    List<Map<String, String>> properties = properties();
    assertThat(properties).extracting(p -> p.get("name"))
        .contains("ballast.clients", "ballast.defaults.endpoints", "ballast.defaults.balancer",
            "ballast.defaults.decay-time", "ballast.defaults.default-rtt",
            "ballast.defaults.subset.selectors", "ballast.defaults.subset.fallback-policy",
            "ballast.defaults.subset.default-subset", "ballast.defaults.pool.max-connections",
            "ballast.defaults.pool.acquire-timeout", "ballast.defaults.timeout",
            "ballast.defaults.retry-budget.percent", "ballast.metrics.enabled",
            "ballast.grpc.enabled", "ballast.http-clients.enabled");
    for (Map<String, String> p : properties) {
      assertThat(p.get("description")).as("description of %s", p.get("name")).isNotBlank();
      boolean collection = p.get("type").startsWith("java.util.");
      // Unset turns Ballast's Spring Cloud balancer off.
      boolean offWhenUnset = p.get("name").equals("ballast.spring-cloud.balancer");
      if (!collection && !offWhenUnset) {
        assertThat(p).as("default of %s", p.get("name")).containsKey("defaultValue");
      }
    }
  }

  @Test
  void documentedDefaultsAreTheDefaultsInForce() throws IOException {
    Map<String, String> base = new HashMap<>();
    base.put("ballast.clients.probe.endpoints", "127.0.0.1:1");
    String expected = settings(base).toString();
    int checked = 0;
    for (Map<String, String> p : properties()) {
      String name = p.get("name");
      String value = p.get("defaultValue");
      if (value == null || !name.startsWith("ballast.defaults.")) {
        continue;
      }
      Map<String, String> explicit = new HashMap<>(base);
      explicit.put("ballast.clients.probe." + name.substring("ballast.defaults.".length()), value);
      assertThat(settings(explicit).toString())
          .as("%s set to its documented default %s", name, value).isEqualTo(expected);
      checked++;
    }
    assertThat(checked).isGreaterThanOrEqualTo(25);
  }

  /**
   * Every hint names a generated property (IDEs silently drop one that does not), or the keys or
   * values of a map property, and every hinted value is one the start-up checks accept.
   */
  @Test
  void hintsNamePropertiesAndOfferOnlyAcceptedValues() throws IOException {
    Map<String, Object> metadata = JsonParserFactory.getJsonParser().parseMap(json());
    List<String> names = properties().stream().map(p -> p.get("name")).toList();
    List<?> hints = (List<?>) metadata.get("hints");
    assertThat(hints).hasSizeGreaterThanOrEqualTo(5);
    int values = 0;
    for (Object h : hints) {
      Map<?, ?> hint = (Map<?, ?>) h;
      String name = (String) hint.get("name");
      String property = name.replaceAll("\\.(keys|values)$", "");
      assertThat(names).as("property of hint %s", name).contains(property);
      if (!name.startsWith("ballast.defaults.") || name.endsWith(".keys")) {
        continue;
      }
      for (Object v : (List<?>) hint.get("values")) {
        String value = (String) ((Map<?, ?>) v).get("value");
        Map<String, String> props = new HashMap<>();
        props.put("ballast.clients.probe.endpoints", "127.0.0.1:1");
        props.put("ballast.clients.probe.subset.default-subset.zone", "a");
        props.put("ballast.clients.probe." + name.substring("ballast.defaults.".length()), value);
        assertThat(settings(props)).as("%s=%s", name, value).isNotNull();
        values++;
      }
    }
    // balancers, protocols, fallback policies, ketama's key hashes
    assertThat(values).isEqualTo(10 + 3 + 3 + 9);
  }

  private static ClientSettings settings(Map<String, String> values) {
    Binder binder = new Binder(new MapConfigurationPropertySource(values));
    BallastProperties properties = binder.bind("ballast", BallastProperties.class)
        .orElseGet(BallastProperties::new);
    return BallastSettings.bind(binder, properties).get("probe");
  }

  private static String json() throws IOException {
    try (InputStream in = ConfigurationMetadataTest.class.getResourceAsStream(
        "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("generated metadata").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<Map<String, String>> properties() throws IOException {
    String json = json();
    int start = json.indexOf("\"properties\"");
    int end = json.indexOf("\"hints\"", start);
    List<Map<String, String>> result = new ArrayList<>();
    Matcher objects = OBJECT.matcher(json.substring(start, end < 0 ? json.length() : end));
    while (objects.find()) {
      Map<String, String> fields = new HashMap<>();
      Matcher f = FIELD.matcher(objects.group());
      while (f.find()) {
        String v = f.group(2).trim();
        fields.put(f.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
      }
      result.add(fields);
    }
    return result;
  }
}

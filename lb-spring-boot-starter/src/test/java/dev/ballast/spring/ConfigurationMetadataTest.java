package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.config.Option;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.spring.internal.PropertyKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The configuration metadata IDEs read is generated from the model: every client option appears
 * as {@code ballast.defaults.<dashed name>} with its type and default, beside the switches. Run
 * with {@code -Dballast.metadata.write=true} to rewrite the file after adding an option.
 */
class ConfigurationMetadataTest {

  private static final Path FILE =
      Path.of("src/main/resources/META-INF/spring-configuration-metadata.json");

  @Test
  void metadataListsEveryOptionOfTheModel() throws IOException {
    Map<String, Object> metadata = JsonParserFactory.getJsonParser().parseMap(
        Boolean.getBoolean("ballast.metadata.write") ? Files.readString(FILE, StandardCharsets.UTF_8)
            : starterMetadata());
    List<Map<String, Object>> expected = properties();
    if (Boolean.getBoolean("ballast.metadata.write")) {
      metadata.put("properties", expected);
      Files.writeString(FILE, Json.write(metadata) + "\n", StandardCharsets.UTF_8);
    }
    // compared as written: the parser reads small whole numbers as Integer, not Long
    assertThat(Json.write(metadata.get("properties")))
        .as("%s is out of date: run this test with -Dballast.metadata.write=true", FILE)
        .isEqualTo(Json.write(expected));
  }

  /**
   * The starter's metadata as the class path holds it (its classes or its jar: the compatibility
   * module runs this test against the jar), not another library's file of the same name.
   */
  private static String starterMetadata() throws IOException {
    java.util.Enumeration<java.net.URL> files = ConfigurationMetadataTest.class.getClassLoader()
        .getResources("META-INF/spring-configuration-metadata.json");
    while (files.hasMoreElements()) {
      try (java.io.InputStream in = files.nextElement().openStream()) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (text.contains("\"ballast.clients\"")) {
          return text;
        }
      }
    }
    throw new IllegalStateException("no META-INF/spring-configuration-metadata.json of the starter"
        + " on the class path");
  }

  static List<Map<String, Object>> properties() {
    List<Map<String, Object>> out = new ArrayList<>();
    out.add(property("ballast.clients", "java.util.Map<java.lang.String,java.lang.Object>",
        "The named clients: ballast.clients.<name>.<option>, the options of ballast.defaults.",
        null));
    BallastClient.Builder<?, ?> fresh = BallastClient.framed();
    for (Option<?, ?, ?> o : dev.ballast.spring.internal.PropertyKeys.clientOptions()) {
      Object dflt = defaultOf(o, fresh);
      out.add(property("ballast.defaults." + PropertyKeys.dashed(o.name()), type(o.type()),
          "The client option " + o.name() + ", for every client (a client's own value wins);"
              + " expected: " + o.type().expected() + ".", dflt));
    }
    for (String s : List.of("metrics", "grpc", "http-client")) {
      out.add(property("ballast." + s + ".enabled", "java.lang.Boolean",
          "Whether Ballast's " + s + " integration is on.", true));
    }
    out.add(property("ballast.spring-cloud.balancer", "java.lang.String",
        "The balancing policy Spring Cloud LoadBalancer uses for every service (one of lb-core's"
            + " algorithms or a registered policy); unset leaves Spring Cloud's own.", null));
    out.add(property("ballast.spring-cloud.policy", "java.util.Map<java.lang.String,"
        + "java.lang.String>", "The own options of a registered policy named by"
            + " ballast.spring-cloud.balancer, such as {percent: 5}; lb-core's algorithms take"
            + " none.", null));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object defaultOf(Option<?, ?, ?> o, BallastClient.Builder<?, ?> fresh) {
    Object v;
    if (ClientOptions.CLIENT.find(o.name()) != null) {
      v = ((Option<BallastClient.Builder<?, ?>, ?, ?>) ClientOptions.CLIENT.find(o.name()))
          .get(fresh);
    } else {
      v = ((Option<Values, ?, ?>) o).get(
          ClientSettings.STARTER_OPTIONS.defaults());
    }
    if (v == null || v instanceof List<?> l && l.isEmpty()) {
      return null;
    }
    return ((ValueType<Object>) o.type()).toJson(v);
  }

  private static String type(ValueType<?> t) {
    if (t == ValueType.DURATION) {
      return "java.time.Duration";
    } else if (t == ValueType.INT) {
      return "java.lang.Integer";
    } else if (t == ValueType.DOUBLE) {
      return "java.lang.Double";
    } else if (t == ValueType.BOOLEAN) {
      return "java.lang.Boolean";
    } else if (t == ValueType.BYTES) {
      return "org.springframework.util.unit.DataSize";
    } else if (t == ValueType.STRING_MAP) {
      return "java.util.Map<java.lang.String,java.lang.String>";
    } else if (t == dev.ballast.core.policy.CoreOptions.POLICY_OPTIONS) {
      return "java.util.Map<java.lang.String,java.lang.String>";
    } else if (t == dev.ballast.core.policy.CoreOptions.ZONE_SHARES) {
      return "java.util.Map<java.lang.String,java.lang.Double>";
    } else if (t.expected().startsWith("a list") || t.expected().contains("entries")) {
      return "java.util.List<java.lang.String>";
    }
    return "java.lang.String";
  }

  private static Map<String, Object> property(String name, String type, String description,
      Object dflt) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("name", name);
    p.put("type", type);
    p.put("description", description);
    if (dflt != null) {
      p.put("defaultValue", dflt);
    }
    return p;
  }
}

/** A small JSON writer for the metadata file: two-space indent, keys in insertion order. */
final class Json {

  private Json() {}

  static String write(Object v) {
    StringBuilder b = new StringBuilder();
    write(b, v, "");
    return b.toString();
  }

  private static void write(StringBuilder b, Object v, String indent) {
    String in = indent + "  ";
    if (v instanceof Map<?, ?> m) {
      b.append("{\n");
      int i = 0;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        b.append(in);
        string(b, String.valueOf(e.getKey()));
        b.append(": ");
        write(b, e.getValue(), in);
        b.append(++i < m.size() ? ",\n" : "\n");
      }
      b.append(indent).append('}');
    } else if (v instanceof List<?> l) {
      b.append("[\n");
      for (int i = 0; i < l.size(); i++) {
        b.append(in);
        write(b, l.get(i), in);
        b.append(i + 1 < l.size() ? ",\n" : "\n");
      }
      b.append(indent).append(']');
    } else if (v instanceof String s) {
      string(b, s);
    } else if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15) {
      b.append(d.longValue()); // parsers read 5 back as 5.0 or 5: written as 5 either way
    } else {
      b.append(v);
    }
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> b.append(c);
      }
    }
    b.append('"');
  }
}

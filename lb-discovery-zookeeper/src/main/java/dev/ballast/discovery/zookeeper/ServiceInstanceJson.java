package dev.ballast.discovery.zookeeper;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.health.RegistryStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads Curator x-discovery's {@code ServiceInstance} JSON into an endpoint: {@code address},
 * {@code port} (or {@code sslPort} when there is no port), and from a {@code payload} object
 * the {@code weight} and every other string or number member as a label ({@code @class}, which
 * Jackson's default typing writes, is ignored), and so the members of its {@code metadata} object
 * (Spring Cloud Zookeeper's instance). A status member, {@code status} or Spring Cloud's {@code
 * instance_status} ({@code UP}, {@code OUT_OF_SERVICE}...), becomes the {@code health} label
 * (see {@link RegistryStatus}). {@code "enabled": false} is refused.
 *
 * <p>A small reader of JSON (RFC 8259) values, enough for this document: objects, arrays,
 * strings with escapes, numbers, booleans and null. What a registry holds is outside data: a
 * document is at most {@value #MAX_CHARS} characters and {@value #MAX_DEPTH} objects and arrays
 * deep, so that no entry can exhaust the reader's stack or memory.
 */
final class ServiceInstanceJson {

  /** The longest document read, in characters (Curator's own are a few hundred). */
  static final int MAX_CHARS = 64 * 1024;
  /** The deepest nesting of objects and arrays read. */
  static final int MAX_DEPTH = 32;

  private final String text;
  private int pos;
  private int depth;

  private ServiceInstanceJson(String text) {
    this.text = text;
  }

  /**
   * Parses one instance.
   *
   * @throws IllegalArgumentException naming what is missing or malformed
   */
  static Endpoint parse(String json) {
    if (json.length() > MAX_CHARS) {
      throw new IllegalArgumentException("ServiceInstance JSON: " + json.length()
          + " characters (expected: at most " + MAX_CHARS + ") in " + quote(json));
    }
    ServiceInstanceJson r = new ServiceInstanceJson(json);
    Object doc;
    try {
      doc = r.value();
      r.skipSpace();
      if (r.pos != json.length()) {
        throw r.error("end of document");
      }
    } catch (IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("ServiceInstance JSON: truncated in " + quote(json), e);
    }
    if (!(doc instanceof Map)) {
      throw new IllegalArgumentException("ServiceInstance JSON: not an object: " + quote(json));
    }
    Map<?, ?> m = (Map<?, ?>) doc;
    if (Boolean.FALSE.equals(m.get("enabled"))) {
      throw new IllegalArgumentException("ServiceInstance JSON: enabled is false");
    }
    Object address = m.get("address");
    if (!(address instanceof String)) {
      throw new IllegalArgumentException("ServiceInstance JSON: address: " + address
          + " (expected: a host name or IP)");
    }
    Object port = m.get("port") != null ? m.get("port") : m.get("sslPort");
    if (!(port instanceof Double) || (Double) port != Math.rint((Double) port)) {
      throw new IllegalArgumentException("ServiceInstance JSON: port: " + port
          + " (expected: an integer in 1-65535)");
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (m.get("payload") instanceof Map<?, ?> payload) {
      labels(payload, labels);
      if (payload.get("metadata") instanceof Map<?, ?> metadata) { // Spring Cloud's instance
        labels(metadata, labels);
      }
    }
    int weight = 1;
    String w = labels.remove("weight");
    if (w != null) {
      try {
        weight = Integer.parseInt(w);
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException("ServiceInstance JSON: weight: " + w
            + " (expected: an integer > 0)", ex);
      }
    }
    status(labels, "status");
    status(labels, "instance_status");
    return Endpoint.of((String) address, (int) (double) (Double) port, weight, labels);
  }

  // an object's string and number members as labels, but @class (Jackson's type)
  private static void labels(Map<?, ?> members, Map<String, String> labels) {
    for (Map.Entry<?, ?> e : members.entrySet()) {
      String key = (String) e.getKey();
      Object v = e.getValue();
      if (!key.equals("@class") && (v instanceof String || v instanceof Double)) {
        labels.put(key, v instanceof Double ? number((Double) v) : (String) v);
      }
    }
  }

  // a registry's status member becomes the health label (the worse of the two if both are set)
  private static void status(Map<String, String> labels, String key) {
    String status = labels.remove(key);
    if (status == null) {
      return;
    }
    Health h;
    try {
      h = RegistryStatus.health(status);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("ServiceInstance JSON: " + key + ": " + status
          + " (expected: a status such as UP, DOWN or OUT_OF_SERVICE)", e);
    }
    String given = labels.get("health");
    labels.put("health", (given == null ? h : Health.parse(given).worst(h)).toString());
  }

  private static String number(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }

  private Object value() {
    skipSpace();
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    nest();
    pos++;
    skipSpace();
    if (text.charAt(pos) == '}') {
      pos++;
      depth--;
      return m;
    }
    while (true) {
      skipSpace();
      if (text.charAt(pos) != '"') {
        throw error("a member name in quotes");
      }
      String key = string();
      skipSpace();
      expect(':');
      m.put(key, value());
      skipSpace();
      if (text.charAt(pos) == ',') {
        pos++;
      } else {
        expect('}');
        depth--;
        return m;
      }
    }
  }

  private Object array() {
    nest();
    pos++;
    skipSpace();
    if (text.charAt(pos) == ']') {
      pos++;
      depth--;
      return null;
    }
    while (true) {
      value();
      skipSpace();
      if (text.charAt(pos) == ',') {
        pos++;
      } else {
        expect(']');
        depth--;
        return null; // arrays are not read
      }
    }
  }

  private String string() {
    StringBuilder sb = new StringBuilder();
    pos++;
    while (true) {
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = text.charAt(pos++);
      switch (e) {
        case 'b': sb.append('\b'); break;
        case 'f': sb.append('\f'); break;
        case 'n': sb.append('\n'); break;
        case 'r': sb.append('\r'); break;
        case 't': sb.append('\t'); break;
        case 'u':
          int code = 0;
          for (int end = pos + 4; pos < end; pos++) {
            int digit = Character.digit(text.charAt(pos), 16);
            if (digit < 0) {
              throw error("4 hex digits after \\u");
            }
            code = code * 16 + digit;
          }
          sb.append((char) code);
          break;
        default: sb.append(e);
      }
    }
  }

  private Double number() {
    int start = pos;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
    try {
      return Double.valueOf(text.substring(start, pos));
    } catch (NumberFormatException e) {
      pos = start;
      throw error("a value");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error(word);
    }
    pos += word.length();
    return value;
  }

  private void expect(char c) {
    if (text.charAt(pos) != c) {
      throw error("'" + c + "'");
    }
    pos++;
  }

  // one level deeper: refused past MAX_DEPTH, before the reader recurses
  private void nest() {
    if (++depth > MAX_DEPTH) {
      throw new IllegalArgumentException("ServiceInstance JSON: at offset " + pos
          + ", objects and arrays nested more than " + MAX_DEPTH + " deep (expected: at most "
          + MAX_DEPTH + ") in " + quote(text));
    }
  }

  // RFC 8259's whitespace only: space, tab, line feed, carriage return
  private void skipSpace() {
    while (pos < text.length() && " \t\n\r".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private IllegalArgumentException error(String expected) {
    return new IllegalArgumentException("ServiceInstance JSON: at offset " + pos + " (expected: "
        + expected + ") in " + quote(text));
  }

  /** The document in quotes, cut to its first 200 characters: a message stays readable. */
  static String quote(String json) {
    return json.length() <= 200 ? "\"" + json + "\""
        : "\"" + json.substring(0, 200) + "...\" (" + json.length() + " characters)";
  }
}

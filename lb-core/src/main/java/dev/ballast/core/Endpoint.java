package dev.ballast.core;

import dev.ballast.core.internal.EndpointText;
import dev.ballast.core.internal.HostSyntax;
import dev.ballast.core.internal.LabelSyntax;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable endpoint: an address (host and port), a weight and labels.
 *
 * <p>The textual form, used wherever a person types endpoints (properties, gRPC targets), is
 * {@code host:port;weight=3;zone=us-east;version=v2}. IPv6 hosts are bracketed
 * ({@code [::1]:8080}); the weight defaults to 1; labels are {@code key=value} pairs kept sorted
 * by key. Several endpoints are separated by commas ({@link #parseList(String)}).
 *
 * <p>Hosts are ASCII names or IP literals; names are kept in lower case, since host names are
 * case-insensitive ({@code LOCALHOST:80} is {@code localhost:80}), and IPv6 literals are checked
 * and their hex digits lower-cased. Ports and weights are ASCII digits. Label values are
 * printable: no whitespace, control or invisible format character (DEL, a zero-width space, a
 * byte-order mark), no {@code ; , =}.
 *
 * <p>Two endpoints with the same {@link #address()} are the same server: balancers keep a
 * node's load state across updates by address, and reject duplicate addresses.
 */
public final class Endpoint {

  /** The longest textual form {@link #parse} reads, in characters. */
  public static final int MAX_TEXT_CHARS = 64 * 1024;
  /** The longest label key, in characters. */
  public static final int MAX_LABEL_KEY_CHARS = LabelSyntax.MAX_KEY_CHARS;
  /** The longest label value, in characters. */
  public static final int MAX_LABEL_VALUE_CHARS = LabelSyntax.MAX_VALUE_CHARS;
  /** The label naming the endpoint's zone (locality), read by {@link #zone()}. */
  public static final String ZONE = "zone";
  /** The label giving the endpoint's priority, read by {@link #priority()}. */
  public static final String PRIORITY = "priority";
  /** The label giving the endpoint's health as its source sees it, read by {@link #health()}. */
  public static final String HEALTH = "health";
  /** The highest priority number (the lowest priority) an endpoint may have. */
  public static final int MAX_PRIORITY = 127;

  private static final String WEIGHT = "weight";

  private final String host;
  private final int port;
  private final int weight;
  private final SortedMap<String, String> labels;
  // the labels again as two arrays in key order, for walks and comparisons without the map
  private final String[] labelKeys;
  private final String[] labelValues;
  private final String address;
  private final int priority;
  private final Health health;
  // computed once: registries push the same endpoints again and again, and comparing hashes
  // first makes telling a changed endpoint from an unchanged one cheap
  private final int hash;

  private Endpoint(String host, int port, int weight, SortedMap<String, String> labels) {
    this.host = host;
    this.port = port;
    this.weight = weight;
    this.labels = labels;
    this.labelKeys = labels.keySet().toArray(new String[0]);
    String p = labels.get(PRIORITY);
    this.priority = p == null ? 0 : Integer.parseInt(p); // checked by checkLabel
    String h = labels.get(HEALTH);
    this.health = h == null ? Health.HEALTHY : Health.parse(h);
    this.labelValues = labels.values().toArray(new String[0]);
    this.address = host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    this.hash = Objects.hash(host, port, weight, labels);
  }

  /**
   * Returns an endpoint with weight 1 and no labels.
   *
   * @throws IllegalArgumentException if the host is empty or malformed, or the port is not in
   *     1-65535
   */
  public static Endpoint of(String host, int port) {
    return of(host, port, 1, Map.of());
  }

  /**
   * Returns an endpoint with the given weight and labels.
   *
   * @throws IllegalArgumentException naming the bad part: an empty or malformed host, a port
   *     outside 1-65535, a weight below 1, or an empty, malformed or too long label key or
   *     value (keys at most {@value #MAX_LABEL_KEY_CHARS} characters, values {@value
   *     #MAX_LABEL_VALUE_CHARS})
   */
  public static Endpoint of(String host, int port, int weight, Map<String, String> labels) {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(labels, "labels");
    String context = " in endpoint " + host + ":" + port;
    String canonicalHost = HostSyntax.canonical(host, context);
    checkPort(port, context);
    checkWeight(weight, context);
    TreeMap<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> e : labels.entrySet()) {
      checkLabel(e.getKey(), e.getValue(), context);
      sorted.put(e.getKey(), e.getValue());
    }
    return new Endpoint(canonicalHost, port, weight, Collections.unmodifiableSortedMap(sorted));
  }

  /**
   * Parses the textual form {@code host:port[;weight=W][;key=value...]}. ASCII spaces and tabs
   * around the parts are ignored; any other blank (U+2028, U+3000...) or control character is
   * an error naming it by code point. At most {@value #MAX_TEXT_CHARS} characters, label keys
   * at most {@value #MAX_LABEL_KEY_CHARS} and values at most {@value #MAX_LABEL_VALUE_CHARS}.
   *
   * @throws IllegalArgumentException naming the bad part and quoting the text, e.g.
   *     {@code weight: -1 (expected: > 0) in "10.0.0.1:80;weight=-1"}
   */
  public static Endpoint parse(String text) {
    Objects.requireNonNull(text, "text");
    String context = " in " + EndpointText.quote(text);
    if (text.length() > MAX_TEXT_CHARS) {
      throw new IllegalArgumentException("endpoint: " + text.length() + " characters (expected: "
          + "at most " + MAX_TEXT_CHARS + ")" + context);
    }
    String[] parts = text.split(";", -1);
    String addr = EndpointText.trimBlanks(parts[0]);
    int bad = EndpointText.invisible(addr);
    if (bad >= 0) {
      throw new IllegalArgumentException("address: " + addr + " (unexpected "
          + EndpointText.codePoint(addr.charAt(bad)) + ")" + context);
    }
    String host;
    String portText;
    if (addr.startsWith("[")) {
      int close = addr.indexOf(']');
      if (close < 0 || close + 1 >= addr.length() || addr.charAt(close + 1) != ':') {
        throw new IllegalArgumentException(
            "address: " + addr + " (expected: [ipv6]:port)" + context);
      }
      host = addr.substring(1, close);
      portText = addr.substring(close + 2);
    } else {
      int colon = addr.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("address: " + addr + " (expected: host:port)" + context);
      }
      host = addr.substring(0, colon);
      portText = addr.substring(colon + 1);
      if (host.indexOf(':') >= 0) {
        throw new IllegalArgumentException(
            "address: " + addr + " (expected: IPv6 in brackets, e.g. [::1]:8080)" + context);
      }
    }
    host = HostSyntax.canonical(host, context);
    long port = EndpointText.asciiInteger(portText);
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port: " + portText + " (expected: 1-65535)" + context);
    }
    int weight = 1;
    boolean weightSeen = false;
    TreeMap<String, String> labels = new TreeMap<>();
    for (int i = 1; i < parts.length; i++) {
      String part = EndpointText.trimBlanks(parts[i]);
      int eq = part.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(
            "attribute: \"" + part + "\" (expected: key=value)" + context);
      }
      String key = EndpointText.trimBlanks(part.substring(0, eq));
      String value = EndpointText.trimBlanks(part.substring(eq + 1));
      if (key.equals(WEIGHT)) {
        if (weightSeen) {
          throw new IllegalArgumentException("weight: given twice" + context);
        }
        weightSeen = true;
        int blank = EndpointText.invisible(value);
        if (blank >= 0) {
          throw new IllegalArgumentException("weight: " + value + " (unexpected "
              + EndpointText.codePoint(value.charAt(blank)) + ")" + context);
        }
        long w = value.startsWith("-")
            ? -EndpointText.asciiInteger(value.substring(1))
            : EndpointText.asciiInteger(value);
        if (w == Long.MIN_VALUE || w > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(
              "weight: " + value + " (expected: an integer in 1-" + Integer.MAX_VALUE + ")"
                  + context);
        }
        if (w < 1) {
          throw new IllegalArgumentException("weight: " + value + " (expected: > 0)" + context);
        }
        weight = (int) w;
      } else {
        checkLabel(key, value, context);
        if (labels.put(key, value) != null) {
          throw new IllegalArgumentException("label " + key + ": given twice" + context);
        }
      }
    }
    return new Endpoint(host, (int) port, weight, Collections.unmodifiableSortedMap(labels));
  }

  /**
   * Parses a comma-separated list of endpoints in the textual form, each item trimmed of ASCII
   * spaces, tabs and line ends (a list may be written one endpoint a line); empty items are
   * ignored.
   *
   * @throws IllegalArgumentException naming the bad entry, or a duplicate address
   */
  public static List<Endpoint> parseList(String text) {
    Objects.requireNonNull(text, "text");
    List<Endpoint> result = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String item : text.split(",")) {
      String trimmed = EndpointText.trimLines(item); // one endpoint a line is fine
      if (trimmed.isEmpty()) {
        continue;
      }
      Endpoint e = parse(trimmed);
      if (!seen.add(e.address())) {
        throw new IllegalArgumentException(
            "address: " + e.address() + " listed twice in \"" + text + "\"");
      }
      result.add(e);
    }
    return List.copyOf(result);
  }

  /** Returns the host name or IP literal (IPv6 without brackets). */
  public String host() {
    return host;
  }

  /** Returns the port, in 1-65535. */
  public int port() {
    return port;
  }

  /** Returns the weight, at least 1; 1 by default. */
  public int weight() {
    return weight;
  }

  /** Returns the labels, sorted by key and unmodifiable; empty by default. */
  public SortedMap<String, String> labels() {
    return labels;
  }

  /** Returns how many labels there are; 0 by default. */
  public int labelCount() {
    return labelKeys.length;
  }

  /**
   * Returns the key of the label at a position in key order: with {@link #labelValue} and
   * {@link #labelCount}, a walk over the labels that reads no map.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < labelCount()}
   */
  public String labelKey(int i) {
    return labelKeys[i];
  }

  /**
   * Returns the value of the label at a position in key order (see {@link #labelKey}).
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < labelCount()}
   */
  public String labelValue(int i) {
    return labelValues[i];
  }

  /** Returns the value of a label, or {@code null} if the endpoint has no such label. */
  public String label(String key) {
    return labels.get(key);
  }

  /** Returns {@code host:port} ({@code [host]:port} for IPv6): the endpoint's identity. */
  public String address() {
    return address;
  }

  /** Returns the {@value #ZONE} label, or {@code null} when the endpoint names no zone. */
  public String zone() {
    return labels.get(ZONE);
  }

  /**
   * Returns the {@value #PRIORITY} label: 0 (the default) is the highest priority, up to
   * {@value #MAX_PRIORITY}; lower priorities take traffic only as Envoy's priority rule spills it.
   */
  public int priority() {
    return priority;
  }

  /** Returns the {@value #HEALTH} label ({@link Health#HEALTHY} by default). */
  public Health health() {
    return health;
  }

  /** Returns a copy with another weight. */
  public Endpoint withWeight(int newWeight) {
    checkWeight(newWeight, " in endpoint " + address);
    return newWeight == weight ? this : new Endpoint(host, port, newWeight, labels);
  }

  /** Returns a copy with other labels. */
  public Endpoint withLabels(Map<String, String> newLabels) {
    return of(host, port, weight, newLabels);
  }

  /** Returns the textual form, which {@link #parse(String)} reads back; weight 1 is omitted. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(address);
    if (weight != 1) {
      sb.append(";weight=").append(weight);
    }
    labels.forEach((k, v) -> sb.append(';').append(k).append('=').append(v));
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Endpoint)) {
      return false;
    }
    Endpoint that = (Endpoint) o;
    return hash == that.hash && port == that.port && weight == that.weight
        && host.equals(that.host)
        && Arrays.equals(labelKeys, that.labelKeys)
        && Arrays.equals(labelValues, that.labelValues);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  private static void checkPort(int port, String context) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)" + context);
    }
  }

  private static void checkWeight(int weight, String context) {
    if (weight < 1) {
      throw new IllegalArgumentException("weight: " + weight + " (expected: > 0)" + context);
    }
  }

  /**
   * Checks a label as {@link #of(String, int, int, Map)} does: its syntax, then the value of a
   * label this class reads ({@code priority} 0-127, {@code health}). For an adapter that takes
   * labels from free-form metadata and keeps the valid ones.
   *
   * @throws IllegalArgumentException naming the label and what is wrong with it
   */
  public static void checkLabel(String key, String value) {
    checkLabel(key, value, "");
  }

  /** Checks a label's syntax, then the values of the labels this class reads: priority, health. */
  private static void checkLabel(String key, String value, String context) {
    LabelSyntax.check(key, value, context);
    if (key.equals(PRIORITY)) {
      long p = EndpointText.asciiInteger(value);
      if (p < 0 || p > MAX_PRIORITY) {
        throw new IllegalArgumentException("priority: " + value + " (expected: an integer in 0-"
            + MAX_PRIORITY + ")" + context);
      }
    } else if (key.equals(HEALTH)) {
      try {
        Health.parse(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage() + context, e);
      }
    }
  }
}

package dev.ballast.core.load;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads Envoy's {@code endpoint-load-metrics} response header, the ORCA load report an HTTP
 * server sends in a header (Envoy's {@code orca_parser}), in its text, JSON and binary forms:
 *
 * <pre>
 * endpoint-load-metrics: TEXT cpu_utilization=0.3, rps_fractional=120, eps=2, named_metrics.queue=4
 * endpoint-load-metrics: JSON {"cpu_utilization": 0.3, "rps_fractional": 120, "named_metrics": {"queue": 4}}
 * endpoint-load-metrics: BIN CQAAAAAAAOA/...  (base64 of a serialized OrcaLoadReport)
 * </pre>
 *
 * <p>Fields: {@code cpu_utilization}, {@code application_utilization}, {@code rps_fractional},
 * {@code eps}, {@code named_metrics.NAME} (text) or {@code named_metrics} and {@code utilization}
 * objects (JSON) or maps (binary, a protobuf of gRFC A51's message read by field number); the
 * JSON form also takes proto JSON's camelCase names. {@code mem_utilization}, {@code rps} and
 * {@code request_cost} are read and ignored, as is any other name. Reading never throws: a
 * header that is not one of the three forms, a field that is not a number, or a bad value gives
 * a report without it and counts it in {@link LoadReport#rejected()}; a malformed binary form
 * (bad base64, a truncated field) keeps what was read before the fault. A header longer than
 * {@link #MAX_LENGTH} characters, or with more than {@link #MAX_NAMED} named metrics, is cut
 * there (the rest counted once).
 */
public final class EndpointLoadMetrics {

  /** The header's name: {@code endpoint-load-metrics}. */
  public static final String HEADER = "endpoint-load-metrics";

  /**
   * The binary header's name, {@code endpoint-load-metrics-bin}: its value is the base64 of the
   * report alone, read as {@code BIN} and that value (before {@link #HEADER}, as Envoy does).
   */
  public static final String HEADER_BIN = "endpoint-load-metrics-bin";

  /** The longest header read, in characters: 8192. */
  public static final int MAX_LENGTH = 8192;

  /** The most named metrics kept from one header: 64. */
  public static final int MAX_NAMED = 64;

  private EndpointLoadMetrics() {}

  /** Reads a header value; never throws, see the class comment. */
  public static LoadReport parse(CharSequence header) {
    Fields f = new Fields();
    if (header == null) {
      f.bad++;
      return f.report();
    }
    String text = header.length() > MAX_LENGTH ? header.subSequence(0, MAX_LENGTH).toString()
        : header.toString();
    if (header.length() > MAX_LENGTH) {
      f.bad++;
    }
    text = text.strip();
    if (text.startsWith("TEXT ")) {
      readText(text.substring(5), f);
    } else if (text.startsWith("JSON ")) {
      new Json(text.substring(5), f).read();
    } else if (text.startsWith("BIN ") || text.equals("BIN")) {
      OrcaBinary.read(text.substring(3), f); // an empty report serializes to no bytes
    } else {
      f.bad++; // no known form
    }
    return f.report();
  }

  /**
   * Reads a serialized {@code xds.data.orca.v3.OrcaLoadReport} (gRFC A51's message, as gRPC's
   * {@code endpoint-load-metrics-bin} trailer and ORCA's out-of-band stream carry it), as the
   * {@code BIN} form is read; never throws: malformed bytes end the reading, counted in {@link
   * LoadReport#rejected()}.
   */
  public static LoadReport parseBinary(byte[] report) {
    Fields f = new Fields();
    if (report == null) {
      f.bad++;
    } else {
      OrcaBinary.read(report, f);
    }
    return f.report();
  }

  /**
   * Writes a report in the header's text form, the one {@link #parse} reads back: {@code TEXT
   * cpu_utilization=0.3, rps_fractional=120.0, eps=2.0}, then {@code application_utilization}
   * and {@code named_metrics.NAME} when present (a name of letters, digits, {@code _}, {@code -}
   * or {@code .}; others are left out, as the text form could not carry them).
   */
  public static String text(LoadReport report) {
    StringBuilder b = new StringBuilder("TEXT cpu_utilization=").append(report.cpuUtilization())
        .append(", rps_fractional=").append(report.qps()).append(", eps=").append(report.eps());
    if (report.applicationUtilization() > 0) {
      b.append(", application_utilization=").append(report.applicationUtilization());
    }
    report.namedMetrics().forEach((name, value) -> {
      if (name.matches("[A-Za-z0-9_.-]+")) {
        b.append(", named_metrics.").append(name).append('=').append(value);
      }
    });
    return b.toString();
  }

  private static void readText(String body, Fields f) {
    for (String entry : body.split(",", -1)) {
      String e = entry.strip();
      int eq = e.indexOf('=');
      if (eq <= 0) {
        f.bad++;
        continue;
      }
      f.set(e.substring(0, eq).strip(), number(e.substring(eq + 1).strip()), true);
    }
  }

  /** Parses a number as Java does, but no hex, no suffixes; NaN when it is none. */
  static double number(String s) {
    if (s.isEmpty() || s.length() > 64) {
      return Double.NaN;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
        return Double.NaN;
      }
    }
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** The fields read so far; a bad or repeated value of a known field counts as rejected. */
  static final class Fields {
    double cpu;
    double application;
    double qps;
    double eps;
    final Map<String, Double> named = new LinkedHashMap<>();
    final Set<String> fromUtilization = new HashSet<>();
    int bad;

    /** Sets a field by name; {@code dotted}: text's {@code named_metrics.NAME} form. */
    void set(String name, double value, boolean dotted) {
      if (dotted && (name.startsWith("named_metrics.") || name.startsWith("utilization."))) {
        named(name.substring(name.indexOf('.') + 1), value, name.startsWith("utilization."));
        return;
      }
      String key = name.replace("_", "").toLowerCase(Locale.ROOT);
      if (Double.isNaN(value) && !key.equals("memutilization")) {
        bad++;
        return;
      }
      switch (key) {
        case "cpuutilization" -> cpu = value;
        case "applicationutilization" -> application = value;
        case "rpsfractional" -> qps = value;
        case "eps" -> eps = value;
        default -> { } // mem_utilization, rps and names unknown here: ignored
      }
    }

    /**
     * Keeps a named metric ({@code utilization}: from the {@code utilization} map, whose value
     * wins over a {@code named_metrics} one of the same name, whatever their order, as gRPC's
     * reports are read).
     */
    void named(String name, double value, boolean utilization) {
      if (name.isEmpty() || Double.isNaN(value) || named.size() >= MAX_NAMED) {
        bad++;
        return;
      }
      if (utilization) {
        named.put(name, value);
        fromUtilization.add(name);
      } else if (!fromUtilization.contains(name)) {
        named.put(name, value);
      }
    }

    LoadReport report() {
      LoadReport r = LoadReport.of(cpu, application, qps, eps, named);
      return bad == 0 ? r : r.withRejected(r.rejected() + bad);
    }
  }

  /**
   * A small JSON reader for one object of numbers and objects of numbers; anything else is
   * skipped (strings, booleans, null, arrays) or, if malformed, ends the reading, counted once.
   * Depth is bounded, so no input can exhaust the stack.
   */
  private static final class Json {
    private static final int MAX_DEPTH = 8;
    private final String s;
    private final Fields f;
    private int at;

    Json(String s, Fields f) {
      this.s = s;
      this.f = f;
    }

    void read() {
      try {
        space();
        expect('{');
        members(null, 1);
        space();
        if (at != s.length()) {
          throw new IllegalStateException("text after the object");
        }
      } catch (IllegalStateException | IndexOutOfBoundsException e) {
        f.bad++;
      }
    }

    /** Reads an object's members after its '{'; {@code group}: the named map being read. */
    private void members(String group, int depth) {
      space();
      if (peek() == '}') {
        at++;
        return;
      }
      while (true) {
        space();
        String name = string();
        space();
        expect(':');
        space();
        char c = peek();
        if (c == '{') {
          at++;
          String key = name.replace("_", "").toLowerCase(Locale.ROOT);
          boolean named = group == null && (key.equals("namedmetrics")
              || key.equals("utilization"));
          if (depth >= MAX_DEPTH) {
            throw new IllegalStateException("nested too deep");
          }
          members(named ? name : "", depth + 1);
        } else if (c == '-' || c >= '0' && c <= '9') {
          double v = number(token());
          if (group == null) {
            f.set(name, v, false);
          } else if (!group.isEmpty()) {
            f.named(name, v, group.replace("_", "").toLowerCase(Locale.ROOT)
                .equals("utilization"));
          }
        } else {
          skip(depth);
        }
        space();
        char next = s.charAt(at++);
        if (next == '}') {
          return;
        }
        if (next != ',') {
          throw new IllegalStateException("expected , or }");
        }
      }
    }

    /** Skips a value that is not a number or an object. */
    private void skip(int depth) {
      char c = peek();
      if (c == '"') {
        string();
      } else if (c == '[') {
        at++;
        if (depth >= MAX_DEPTH) {
          throw new IllegalStateException("nested too deep");
        }
        space();
        if (peek() == ']') {
          at++;
          return;
        }
        while (true) {
          space();
          char v = peek();
          if (v == '{') {
            at++;
            members("", depth + 1);
          } else if (v == '-' || v >= '0' && v <= '9') {
            token();
          } else {
            skip(depth + 1);
          }
          space();
          char next = s.charAt(at++);
          if (next == ']') {
            return;
          }
          if (next != ',') {
            throw new IllegalStateException("expected , or ]");
          }
        }
      } else {
        String word = token();
        if (!word.equals("true") && !word.equals("false") && !word.equals("null")) {
          throw new IllegalStateException("unknown value");
        }
      }
    }

    private String string() {
      expect('"');
      StringBuilder sb = new StringBuilder();
      while (true) {
        char c = s.charAt(at++);
        if (c == '"') {
          return sb.toString();
        }
        if (c == '\\') {
          char e = s.charAt(at++);
          switch (e) {
            case 'n' -> sb.append('\n');
            case 't' -> sb.append('\t');
            case 'r' -> sb.append('\r');
            case 'b' -> sb.append('\b');
            case 'f' -> sb.append('\f');
            case 'u' -> {
              sb.append((char) Integer.parseInt(hex4(), 16));
            }
            default -> sb.append(e);
          }
        } else {
          sb.append(c);
        }
      }
    }

    private String hex4() {
      String h = s.substring(at, at + 4);
      for (int i = 0; i < 4; i++) {
        if (Character.digit(h.charAt(i), 16) < 0) {
          throw new IllegalStateException("bad \\u escape");
        }
      }
      at += 4;
      return h;
    }

    /** Reads a bare token (a number or a word) up to a delimiter. */
    private String token() {
      int start = at;
      while (at < s.length() && ",}] \t\r\n".indexOf(s.charAt(at)) < 0) {
        at++;
      }
      if (at == start) {
        throw new IllegalStateException("empty value");
      }
      return s.substring(start, at);
    }

    private char peek() {
      return s.charAt(at);
    }

    private void expect(char c) {
      if (s.charAt(at++) != c) {
        throw new IllegalStateException("expected " + c);
      }
    }

    private void space() {
      while (at < s.length() && " \t\r\n".indexOf(s.charAt(at)) >= 0) {
        at++;
      }
    }
  }
}

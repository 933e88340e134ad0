package dev.ballast.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Writes results as a text table and as JSON; shared by the simulator and the live demo. */
public final class Report {

  private Report() {}

  /**
   * Returns a fixed-width table: balancer, requests, success rate at the timeout, the latency
   * at each of {@link Result#PERCENTILES} and the max, in milliseconds.
   */
  public static String table(List<Result> results) {
    StringBuilder s = new StringBuilder();
    int first = 16; // wider only for a longer name, such as the demo's p2c_peak_ewma+hedge
    for (Result r : results) {
      first = Math.max(first, r.balancer().length() + 1);
    }
    fixedWidth(s, header(), first);
    for (Result r : results) {
      fixedWidth(s, cells(r), first);
    }
    return s.toString();
  }

  /**
   * Returns the results as a Markdown table (same columns as {@link #table}), for README and
   * BENCHMARKS sections.
   */
  public static String markdown(List<Result> results) {
    StringBuilder s = new StringBuilder();
    List<String> header = header();
    s.append("| ").append(String.join(" | ", header)).append(" |\n|---")
        .append("|---:".repeat(header.size() - 1)).append("|\n");
    for (Result r : results) {
      s.append("| ").append(String.join(" | ", cells(r))).append(" |\n");
    }
    return s.toString();
  }

  private static List<String> header() {
    List<String> h = new ArrayList<>(List.of("balancer", "requests", "success"));
    for (double p : Result.PERCENTILES) {
      h.add("p" + label(p) + " ms");
    }
    h.add("max ms");
    return h;
  }

  private static List<String> cells(Result r) {
    List<String> c = new ArrayList<>(List.of(r.balancer(), String.valueOf(r.requests()),
        String.format(Locale.ROOT, "%.2f%%", 100 * r.successRate())));
    for (double p : Result.PERCENTILES) {
      c.add(String.format(Locale.ROOT, "%.1f", r.percentileMillis(p)));
    }
    c.add(String.format(Locale.ROOT, "%.1f", r.maxMillis()));
    return c;
  }

  /** Appends one row: the first cell left-aligned in {@code first} columns, the rest in 9. */
  private static void fixedWidth(StringBuilder s, List<String> cells, int first) {
    s.append(String.format(Locale.ROOT, "%-" + first + "s", cells.get(0)));
    for (int i = 1; i < cells.size(); i++) {
      s.append(String.format(Locale.ROOT, " %9s", cells.get(i)));
    }
    s.append(System.lineSeparator());
  }

  /** Returns a percentile as written in headers: 50, 99.9. */
  private static String label(double p) {
    return p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p);
  }

  /**
   * Returns {@code {"scenario": ..., "results": [{"balancer", "requests", "successes",
   * "attempts", "success_rate", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "p9999_ms", "max_ms"},
   * ...]}}; the success rate is a fraction from 0 to 1.
   */
  public static String json(String scenario, List<Result> results) {
    StringBuilder s = new StringBuilder("{\n  \"scenario\": ").append(quote(scenario))
        .append(",\n  \"results\": [");
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      s.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
          "    {\"balancer\": %s, \"requests\": %d, \"successes\": %d, \"attempts\": %d,"
              + " \"success_rate\": %.6f", quote(r.balancer()), r.requests(), r.successes(),
          r.attempts(), r.successRate()));
      for (double p : Result.PERCENTILES) {
        s.append(String.format(Locale.ROOT, ", \"p%s_ms\": %.3f", label(p).replace(".", ""),
            r.percentileMillis(p)));
      }
      s.append(String.format(Locale.ROOT, ", \"max_ms\": %.3f}", r.maxMillis()));
    }
    return s.append("\n  ]\n}\n").toString();
  }

  /** Writes {@link #json} to a file, creating its directory. */
  public static void writeJson(Path file, String scenario, List<Result> results) throws IOException {
    createParent(file);
    Files.writeString(file, json(scenario, results));
  }

  static void createParent(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
  }

  static String quote(String text) {
    StringBuilder s = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        case '\n' -> s.append("\\n");
        case '\t' -> s.append("\\t");
        default -> {
          if (c < 0x20) {
            s.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    return s.append('"').toString();
  }
}

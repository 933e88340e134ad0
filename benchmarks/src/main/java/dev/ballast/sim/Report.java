package dev.ballast.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Writes results as a text table and as JSON; shared by the simulator and the live demo. */
public final class Report {

  private Report() {}

  /**
   * Returns a fixed-width table: balancer, requests, success rate at the timeout, p50, p90, p99,
   * p99.9, p99.99 and max latency in milliseconds.
   */
  public static String table(List<Result> results) {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "%-16s %9s %9s %9s %9s %9s %9s %9s %9s%n", "balancer",
        "requests", "success", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "p99.99 ms", "max ms"));
    for (Result r : results) {
      s.append(String.format(Locale.ROOT, "%-16s %9d %8.2f%% %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f%n",
          r.balancer(), r.requests(), 100 * r.successRate(), r.percentileMillis(50),
          r.percentileMillis(90), r.percentileMillis(99), r.percentileMillis(99.9),
          r.percentileMillis(99.99), r.maxMillis()));
    }
    return s.toString();
  }

  /**
   * Returns the results as a Markdown table (same columns as {@link #table}), for README and
   * BENCHMARKS sections.
   */
  public static String markdown(List<Result> results) {
    StringBuilder s = new StringBuilder(
        "| balancer | requests | success | p50 ms | p90 ms | p99 ms | p99.9 ms | p99.99 ms | max ms |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Result r : results) {
      s.append(String.format(Locale.ROOT, "| %s | %d | %.2f%% | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
          r.balancer(), r.requests(), 100 * r.successRate(), r.percentileMillis(50),
          r.percentileMillis(90), r.percentileMillis(99), r.percentileMillis(99.9),
          r.percentileMillis(99.99), r.maxMillis()));
    }
    return s.toString();
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
              + " \"success_rate\": %.6f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f,"
              + " \"p999_ms\": %.3f, \"p9999_ms\": %.3f, \"max_ms\": %.3f}",
          quote(r.balancer()), r.requests(), r.successes(), r.attempts(), r.successRate(),
          r.percentileMillis(50), r.percentileMillis(90), r.percentileMillis(99),
          r.percentileMillis(99.9), r.percentileMillis(99.99), r.maxMillis()));
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

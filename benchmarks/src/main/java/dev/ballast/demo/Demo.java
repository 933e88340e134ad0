package dev.ballast.demo;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.sim.Durations;
import dev.ballast.sim.Flags;
import dev.ballast.sim.LatencyChart;
import dev.ballast.sim.LatencyDistribution;
import dev.ballast.sim.Report;
import dev.ballast.sim.Result;
import dev.ballast.sim.Simulate;
import dev.ballast.sim.SlowWindow;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code ./ballast demo [flags]}: runs Linkerd's experiment (11 backends, one of them slow for the
 * middle half of the run) on real {@link FramedServer}s on 127.0.0.1, called at a constant rate
 * through a {@link BallastClient} per balancer, and prints progress, then the table and the
 * chart's path. Time is scaled down from the original's 167 ms / 2 s / 1 s to 20 ms / 240 ms /
 * 120 ms so that three 20 s runs end in about a minute and a quarter.
 *
 * <p>Defaults: 11 backends answering in normal(20 ms, 0.6 ms), backend 0 answering in 240 ms from
 * 5 s to 15 s, 1000 requests/s for 20 s per balancer, a 120 ms deadline that the client
 * enforces (it gives up at 120 ms, as a real client does; the late answers still reach the
 * balancer, see {@code BallastClient.Builder#lateAnswerWait}), balancers
 * round_robin, least_loaded and p2c_peak_ewma, no retries, outlier detection off (so that what is
 * measured is the balancer alone), and a 3 s warm-up before the first run that is not counted
 * (a cold JVM answers its first requests slowly). With {@code --hedge}, the last balancer runs
 * once more with {@link Hedging} (every call is idempotent), and the run prints the hedges sent
 * and won and the extra load the backends received.
 */
public final class Demo {

  private static final String HELP = """
      usage: ./ballast demo [flags]
        --balancers LIST     comma-separated or all (default round_robin,least_loaded,p2c_peak_ewma)
        --backends N         backends (default 11)
        --latency D          median latency of every backend (default 20ms; stddev 3% of it)
        --slow-latency D     backend 0's latency in the slow window (default 240ms)
        --fail-fast          backend 0 answers with an error in 1 ms in that window instead
                             (the fail-fast scenario: where does peak EWMA send the calls?)
        --timeout D          the deadline, and the success threshold (default 120ms)
        --deadline MODE      enforce: the client gives up at the timeout, as a real client does;
                             late answers still reach the balancer with their true latency (default);
                             measure: the client waits for every answer and counts late ones as
                             failures, like Linkerd's experiment and the simulator's linkerd
        --rate R             requests per second (default 1000)
        --duration D         per balancer (default 20s; the slow window is its middle half)
        --warmup D           uncounted warm-up before the first run (default 3s)
        --hedge D|pN         then run the last balancer again with hedging (backup requests)
                             after a fixed delay (30ms) or the client's own pN latency (p98),
                             budget 2% of calls: a row <balancer>+hedge, and its extra load
        --chart FILE         SVG chart (default target/ballast-demo.svg; none: no chart)
        --json FILE          also write the results as JSON
        --markdown           also print the table as Markdown
        --zones              instead: zone-aware routing against uniform balancing over servers
                             in three zones (cross-zone calls), and a zone turning unhealthy
        --capacity           instead: servers of capacities 1:1:2:4 that report their load;
                             utilization spread (max/mean) and p99 per balancer (default
                             round_robin,least_loaded,p2c_peak_ewma,weighted_round_robin,
                             p2c_utilization; --warmup 4s, --duration 5s each; about 50 s)
      """;

  private Demo() {}

  /** Runs the demo; exits with status 2 on a bad flag. */
  public static void main(String[] args) throws Exception {
    DemoConfig config = Flags.parseOrExit("demo", () -> DemoConfig.parse(args));
    if (config.help) {
      System.out.print(HELP);
      return;
    }
    if (config.zones) {
      ZoneDemo.run(System.out);
      System.exit(0);
    }
    if (config.capacity) {
      new CapacityDemo(config).run(System.out);
      System.exit(0);
    }
    run(config, System.out);
    // End at once: the shared Netty event loops are never shut down (their threads are
    // daemons), so nothing is left to finish.
    System.exit(0);
  }

  static List<Result> run(DemoConfig c, PrintStream out) throws IOException, InterruptedException {
    long started = System.nanoTime();
    out.println("ballast demo: " + c.describe());
    out.println(HostLoad.describe("start"));
    out.println("Real Netty servers on 127.0.0.1, called through the lb-netty client (BallastClient),"
        + " one run per balancer.");
    if (c.warmupNanos > 0) {
      out.printf(Locale.ROOT, "warming up for %s (not counted)...%n", Durations.format(c.warmupNanos));
      new DemoRun(c, Algorithm.ROUND_ROBIN, null, c.warmupNanos, false, null).run();
    }
    List<Result> results = new ArrayList<>();
    StringBuilder shares = new StringBuilder();
    StringBuilder recovered = new StringBuilder();
    List<Algorithm> runs = new ArrayList<>(c.balancers);
    if (c.hedging != null) {
      runs.add(c.balancers.get(c.balancers.size() - 1));
    }
    double[] slowShares = new double[runs.size()];
    for (int i = 0; i < runs.size(); i++) {
      Algorithm a = runs.get(i);
      Hedging hedging = i == c.balancers.size() ? c.hedging : null;
      String label = a.id() + (hedging != null ? "+hedge" : "");
      out.printf(Locale.ROOT, "%n== %s: %s at %s req/s%s%n", label,
          Durations.format(c.durationNanos), Flags.number(c.rate),
          hedging != null ? ", hedging " + c.hedgeText + " (budget 2%)" : "");
      DemoRun run = new DemoRun(c, a, hedging, c.durationNanos, true, out);
      results.add(run.run());
      slowShares[i] = run.slowShare();
      shares.append(String.format(Locale.ROOT, "%s %s%.2f%%", shares.length() == 0 ? "" : ",",
          label + " ", run.slowShare()));
      recovered.append(String.format(Locale.ROOT, "%n  %-19s%s", label, run.recoveredText()));
    }
    out.println();
    out.println("Results (" + c.describe() + "):");
    out.print(Report.table(results));
    out.printf(Locale.ROOT, "Share of requests sent to backend 0 while it was %s (1/%d is %.2f%%):%s%n",
        c.failFast ? "failing" : "slow", c.backends, 100.0 / c.backends, shares);
    out.printf(Locale.ROOT, "Share of requests sent to backend 0 in each second after it"
        + " recovered at %s (1/%d is %.2f%%):%s%n", Durations.format(c.slowWindow().endNanos()),
        c.backends, 100.0 / c.backends, recovered);
    if (c.markdown) {
      out.println();
      out.print(Report.markdown(results));
    }
    if (c.json != null) {
      Report.writeJson(c.json, "demo: " + c.describe(), results);
      out.println("json:  " + c.json);
    }
    if (c.chart != null) {
      LatencyChart.write(c.chart, "Latency by balancer, live demo on 127.0.0.1 (lb-netty)",
          "demo: " + c.describe().replace(", slow:", "; slow:") + "; "
              + HostLoad.describe("end").lines().findFirst().orElse(""), c.timeoutNanos / 1e6, results,
          slowShares);
      out.println("chart: " + c.chart);
    }
    out.println(HostLoad.describe("end"));
    out.printf(Locale.ROOT, "(demo took %.0f s)%n", (System.nanoTime() - started) / 1e9);
    return results;
  }

  /** The demo's settings, from flags. */
  static final class DemoConfig {
    List<Algorithm> balancers = Simulate.DEFAULT_BALANCERS;
    int backends = 11;
    long latencyNanos = 20_000_000L;
    long slowLatencyNanos = 240_000_000L;
    long timeoutNanos = 120_000_000L;
    boolean enforce = true;
    double rate = 1000;
    long durationNanos = 20_000_000_000L;
    long warmupNanos = 3_000_000_000L;
    Path chart = Path.of("target", "ballast-demo.svg");
    Path json;
    Hedging hedging;
    String hedgeText;
    boolean markdown;
    boolean help;
    boolean failFast;
    boolean zones;
    boolean capacity;
    /** The flags given, so that {@code --capacity} can keep its own defaults for the others. */
    final Set<String> given = new java.util.HashSet<>();

    long stddevNanos() {
      return latencyNanos * 3 / 100;
    }

    /** Every backend's latency outside the slow window. */
    LatencyDistribution latency() {
      return LatencyDistribution.normal(latencyNanos, stddevNanos());
    }

    /**
     * Backend 0 answers in the slow latency during the middle half of a run, or with an error in
     * 1 ms with {@code --fail-fast}.
     */
    SlowWindow slowWindow() {
      return new SlowWindow(0, durationNanos / 4, durationNanos * 3 / 4,
          LatencyDistribution.constant(failFast ? 1_000_000L : slowLatencyNanos), failFast);
    }

    String describe() {
      return String.format(Locale.ROOT,
          "%d backends normal(%s,%s), %s req/s, %s per balancer, timeout %s (%s), %s: backend 0"
              + " %s from %s to %s",
          backends, Durations.format(latencyNanos), Durations.format(stddevNanos()), Flags.number(rate),
          Durations.format(durationNanos), Durations.format(timeoutNanos),
          enforce ? "enforced" : "measured, not enforced", failFast ? "failing" : "slow",
          failFast ? "errors in 1ms" : Durations.format(slowLatencyNanos),
          Durations.format(slowWindow().startNanos()), Durations.format(slowWindow().endNanos()));
    }

    static DemoConfig parse(String[] args) {
      DemoConfig c = new DemoConfig();
      try {
        Flags.forEach(List.of(args), Set.of("--help", "-h", "--markdown", "--fail-fast", "--zones",
            "--capacity"), (flag, value) -> c.apply(flag, value));
      } catch (IOException e) {
        throw new UncheckedIOException(e); // no flag of the demo reads a file
      }
      if (c.durationNanos < 1_000_000_000L) {
        throw new IllegalArgumentException("--duration: " + Durations.format(c.durationNanos)
            + " (expected: >= 1s)");
      }
      if (c.timeoutNanos <= 0 || c.latencyNanos <= 0) {
        throw new IllegalArgumentException("--timeout and --latency: expected > 0");
      }
      if (c.zones && c.capacity) {
        throw new IllegalArgumentException("--capacity: with --zones (expected: one of them)");
      }
      return c;
    }

    /** Applies one flag; {@code value} is null for a switch. */
    private void apply(String flag, String value) {
      given.add(flag);
      switch (flag) {
        case "--help", "-h" -> help = true;
        case "--markdown" -> markdown = true;
        case "--fail-fast" -> failFast = true;
        case "--zones" -> zones = true;
        case "--capacity" -> capacity = true;
        case "--balancers" -> balancers = Simulate.parseBalancers(value);
        case "--backends" -> backends = Flags.parseInt(flag, value, 1);
        case "--latency" -> latencyNanos = Durations.parseNanos(value);
        case "--slow-latency" -> slowLatencyNanos = Durations.parseNanos(value);
        case "--timeout" -> timeoutNanos = Durations.parseNanos(value);
        case "--deadline" -> enforce = Flags.enforceDeadline(value);
        case "--rate" -> {
          rate = Flags.parseDouble(flag, value);
          if (!(rate > 0) || rate > 100_000) {
            throw new IllegalArgumentException("--rate: " + value + " (expected: > 0 and <= 100000)");
          }
        }
        case "--duration" -> durationNanos = Durations.parseNanos(value);
        case "--warmup" -> warmupNanos = Durations.parseNanos(value);
        case "--chart" -> chart = value.equalsIgnoreCase("none") ? null : Path.of(value);
        case "--json" -> json = Path.of(value);
        case "--hedge" -> {
          hedgeText = value;
          hedging = parseHedge(value);
        }
        default -> throw new IllegalArgumentException("flag: " + flag + " (unknown)");
      }
    }
  }

  /** Parses {@code --hedge}: a duration ({@code 30ms}) or a percentile ({@code p98}). */
  static Hedging parseHedge(String value) {
    if (value.startsWith("p")) {
      double p;
      try {
        p = Double.parseDouble(value.substring(1));
      } catch (NumberFormatException e) {
        p = -1;
      }
      if (!(p > 0 && p < 100)) {
        throw new IllegalArgumentException("--hedge: " + value
            + " (expected: a percentile such as p98, or a delay such as 30ms)");
      }
      return Hedging.atPercentile(p / 100);
    }
    return Hedging.after(Duration.ofNanos(Durations.parseNanos(value)));
  }

  /** Used by {@link DemoRun} to build the client: the flags' settings, with retries and ejection off. */
  static BallastClient<byte[], byte[]> client(DemoConfig c, Algorithm a, Hedging hedging,
      List<FramedServer> servers) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (FramedServer s : servers) {
      endpoints.add(s.endpoint());
    }
    // Enforcing mode (the default) gives up at the timeout, as a real client does; the request
    // stays pending on its backend until the late answer comes, and the balancer then hears its
    // true latency (as a failure). Measuring mode waits for the slow answers (as Linkerd's
    // experiment did).
    Duration deadline = Duration.ofNanos(c.enforce ? c.timeoutNanos
        : Math.max(4 * c.slowLatencyNanos, 2 * c.timeoutNanos));
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed()
        .name("demo-" + a.id())
        .endpoints(endpoints)
        .balancer(a)
        .timeout(deadline)
        .maxAttempts(1)
        .outlierDetection(OutlierDetection.disabled());
    if (hedging != null) {
      b.hedging(hedging);
    }
    return b.build();
  }
}

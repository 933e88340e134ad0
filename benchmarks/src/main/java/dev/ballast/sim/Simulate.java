package dev.ballast.sim;

import dev.ballast.core.Algorithm;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.Locale;

/**
 * The simulator's command line ({@code ./ballast simulate [flags]}): builds a scenario from a
 * built-in name and flags, runs it with each chosen balancer, prints a table and writes the chart
 * (and JSON on request). {@code --help} lists the flags.
 */
public final class Simulate {

  /** The balancers compared when {@code --balancers} is not given. */
  public static final List<Algorithm> DEFAULT_BALANCERS =
      List.of(Algorithm.ROUND_ROBIN, Algorithm.LEAST_LOADED, Algorithm.P2C_PEAK_EWMA);

  private static final String HELP = """
      usage: ./ballast simulate [flags]      (flags apply in order, after --scenario)
        --scenario NAME        start from a built-in scenario: linkerd (default), linkerd-deadline
                               (the same with the timeout enforced), scale-out, fail-fast,
                               aperture (clients and servers, not requests), zones (callers
                               in three zones: cross-zone calls, uniform against zone-aware),
                               capacity (servers of 1:1:2:4 cores reporting their load; --seed
                               only), or custom (no backends); disruption: keys moved by ring_hash,
                               ketama, maglev
                               when one of --backends (100) leaves, over --keys (1000000), --seed
        --file FILE            read more flags from FILE (one or more per line, # comments)
        --backends N           N backends, all with the latency of backend 0 (custom: needs --latency)
        --latency DIST         every backend's latency: 20ms | constant:20ms | normal:167ms,5ms |
                               lognormal:20ms,0.5 (median, sigma) | replay:FILE (one latency per line)
        --backend-latency I=DIST   backend I's latency
        --slow I:START:END:DIST    backend I answers with DIST for requests from START to END
                               (repeatable; the first one replaces the scenario's windows)
        --no-slow              no slow windows
        --fail I:START:END:DIST    backend I answers with an error after DIST from START to END
        --scale-out N:AT       backends N and up join the balancer at AT (the first N are there)
        --cold-start F:D       joining backends answer F times slower at first, normally after D
        --measure-from D       count only requests arriving from D (earlier: the steady state)
        --slow-start D[,A[,F]] the balancers' slow start: window D (default 0: off), aggression A
                               (default 1.0) and floor F in percent (default 10; > 0 and
                               <= 100, fractions allowed: 0.1)
        --rate R               requests per second (linkerd: 1000)
        --arrivals KIND        constant (evenly spaced, default) or poisson
        --duration D           how long requests are sent (linkerd: 60s)
        --timeout D            the client's deadline per request (linkerd: 1s)
        --deadline MODE        enforce: the client gives up at the timeout (default); measure: the
                               client waits for every answer and counts late ones as failures (as
                               in Linkerd's experiment: linkerd)
        --late-answers MODE    with the deadline enforced, feed (default, as lb-netty): a late
                               answer still reaches the balancer with its real latency; drop: the
                               balancer sees a failure at the deadline
        --retries N            retry an attempt that exceeds --try-timeout, up to N times (default 0)
        --try-timeout D        per-attempt timeout with retries (default timeout / (N + 1))
        --backup-after D       send one backup request after D without an answer (default off)
        --seed S               random seed (default 1)
        --balancers LIST       comma-separated, or all (default round_robin,least_loaded,p2c_peak_ewma)
        --json FILE            also write the results as JSON
        --chart FILE           where to write the SVG chart (default target/ballast-sim-NAME.svg; none: skip)
        --markdown             also print the table as Markdown
      """;

  private Simulate() {}

  /** Runs the command line; exits with status 2 on a bad flag. */
  public static void main(String[] args) throws IOException {
    System.exit(Flags.parseOrExit("simulate", () -> run(args, System.out)));
  }

  /** Runs the command line, printing to {@code out}; returns the exit status. */
  public static int run(String[] args, PrintStream out) throws IOException {
    if (Disruption.asked(args)) {
      return Disruption.run(args, out);
    }
    if (CapacitySimulation.asked(args)) {
      return CapacitySimulation.run(args, out);
    }
    Options o = parse(args);
    if (o.help) {
      out.print(HELP);
      return 0;
    }
    if (o.aperture) {
      out.print(ApertureSimulation.run(o.seed));
      return 0;
    }
    if (o.zones) {
      out.print(ZoneSimulation.run(o.seed));
      return 0;
    }
    Scenario scenario = o.scenario.build();
    out.println("scenario " + scenario.describe());
    long start = System.nanoTime();
    List<Result> results = new Simulator(scenario).run(o.balancers);
    out.print(Report.table(results));
    out.print(extras(scenario, results));
    if (o.markdown) {
      out.println();
      out.print(Report.markdown(results));
    }
    out.printf(Locale.ROOT, "(simulated %s of virtual time per balancer in %.1f s of real time)%n",
        Durations.format(scenario.durationNanos()), (System.nanoTime() - start) / 1e9);
    if (o.json != null) {
      Report.writeJson(o.json, scenario.describe(), results);
      out.println("json:  " + o.json);
    }
    if (o.chart != null) {
      LatencyChart.write(o.chart, "Latency by balancer, scenario " + scenario.name()
          + " (simulated, timeout " + Durations.format(scenario.timeoutNanos()) + ")",
          scenario.describe(), scenario.timeoutNanos() / 1e6, results);
      out.println("chart: " + o.chart);
    }
    return 0;
  }

  /**
   * Returns the lines a scenario adds under the table: each failing backend's share of the
   * attempts, and the success before the measuring window against the success within it.
   */
  static String extras(Scenario scenario, List<Result> results) {
    StringBuilder s = new StringBuilder();
    for (Result r : results) {
      for (int backend : scenario.slowWindows().stream().filter(SlowWindow::fails)
          .mapToInt(SlowWindow::backend).distinct().toArray()) {
        s.append(String.format(Locale.ROOT, "%-16s failing backend %d got %.2f%% of the attempts%n",
            r.balancer(), backend, 100 * r.share(backend)));
      }
      if (scenario.measureFromNanos() > 0 && scenario.scaleOut() != null) {
        s.append(String.format(Locale.ROOT, "%-16s success %.2f%% before the scale-out, %.2f%%"
            + " after (%+.2f points)%n", r.balancer(), 100 * r.steadySuccessRate(),
            100 * r.successRate(), 100 * (r.successRate() - r.steadySuccessRate())));
      }
    }
    return s.toString();
  }

  /** The parsed flags. */
  static final class Options {
    boolean aperture;
    boolean zones;
    long seed = 1;
    Scenario.Builder scenario = Scenarios.named("linkerd").toBuilder();
    List<Algorithm> balancers = DEFAULT_BALANCERS;
    Path json;
    Path chart;
    boolean chartSet;
    boolean markdown;
    boolean help;
    boolean slowGiven;
  }

  static Options parse(String[] args) throws IOException {
    Options o = new Options();
    apply(o, new ArrayList<>(Arrays.asList(args)), 0);
    if (!o.chartSet && !o.aperture && !o.zones) {
      o.chart = Path.of("target", "ballast-sim-" + o.scenario.build().name() + ".svg");
    }
    return o;
  }

  private static void apply(Options o, List<String> args, int depth) throws IOException {
    Flags.forEach(args, Set.of("--help", "-h", "--no-slow", "--markdown"), (flag, value) -> {
      switch (flag) {
        case "--help", "-h" -> o.help = true;
        case "--no-slow" -> {
          o.scenario.clearSlowWindows();
          o.slowGiven = true;
        }
        case "--markdown" -> o.markdown = true;
        default -> applyValue(o, flag, value, depth);
      }
    });
  }

  private static void applyValue(Options o, String flag, String value, int depth) throws IOException {
    Scenario.Builder b = o.scenario;
    switch (flag) {
      case "--scenario" -> {
        o.aperture = value.equalsIgnoreCase("aperture");
        o.zones = value.equalsIgnoreCase("zones");
        if (value.equalsIgnoreCase("custom") || o.aperture || o.zones) {
          o.scenario = Scenario.builder();
        } else {
          o.scenario = Scenarios.named(value).toBuilder();
        }
        o.slowGiven = false;
      }
      case "--file" -> {
        if (depth > 4) {
          throw new IllegalArgumentException("--file: " + value + " (expected: files nested at most 4 deep)");
        }
        List<String> more = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(value))) {
          String t = line.strip();
          if (!t.isEmpty() && !t.startsWith("#")) {
            more.addAll(Arrays.asList(t.split("\\s+")));
          }
        }
        apply(o, more, depth + 1);
      }
      case "--backends" -> {
        int n = Flags.parseInt(flag, value, 1);
        if (b.backendCount() == 0) {
          throw new IllegalArgumentException("--backends: give --latency first for a custom scenario");
        }
        b.backends(n, b.build().backends().get(0));
      }
      case "--latency" -> {
        LatencyDistribution d = LatencyDistribution.parse(value);
        b.backends(Math.max(1, b.backendCount()), d);
      }
      case "--backend-latency" -> {
        int at = value.indexOf('=');
        if (at < 0) {
          throw new IllegalArgumentException("--backend-latency: " + value + " (expected: I=DIST, e.g. 3=normal:50ms,5ms)");
        }
        b.backend(Flags.parseInt(flag, value.substring(0, at), 0), LatencyDistribution.parse(value.substring(at + 1)));
      }
      case "--slow" -> {
        if (!o.slowGiven) {
          b.clearSlowWindows();
          o.slowGiven = true;
        }
        b.slowWindow(SlowWindow.parse(value));
      }
      case "--fail" -> {
        if (!o.slowGiven) {
          b.clearSlowWindows();
          o.slowGiven = true;
        }
        b.slowWindow(SlowWindow.parse(value, true));
      }
      case "--scale-out" -> {
        String[] p = value.split(":", 2);
        if (p.length != 2) {
          throw new IllegalArgumentException(
              "--scale-out: " + value + " (expected: N:AT, e.g. 10:30s)");
        }
        ScaleOut old = b.build().scaleOut();
        b.scaleOut(new ScaleOut(Flags.parseInt(flag, p[0], 1), Durations.parseNanos(p[1]),
            old == null ? 1 : old.coldFactor(), old == null ? 0 : old.coldNanos()));
      }
      case "--cold-start" -> {
        String[] p = value.split(":", 2);
        ScaleOut old = b.build().scaleOut();
        if (p.length != 2 || old == null) {
          throw new IllegalArgumentException("--cold-start: " + value
              + " (expected: F:D, e.g. 10:20s, after --scale-out or in the scale-out scenario)");
        }
        b.scaleOut(new ScaleOut(old.initial(), old.atNanos(), Flags.parseDouble(flag, p[0]),
            Durations.parseNanos(p[1])));
      }
      case "--measure-from" -> b.measureFromNanos(Durations.parseNanos(value));
      case "--slow-start" -> {
        String[] p = value.split(",", 3);
        b.slowStart(Durations.parseNanos(p[0]),
            p.length > 1 ? Flags.parseDouble(flag, p[1]) : 1.0,
            p.length > 2 ? Flags.parseDouble(flag, p[2]) : 10);
      }
      case "--rate" -> b.ratePerSecond(Flags.parseDouble(flag, value));
      case "--arrivals" -> {
        switch (value.toLowerCase(Locale.ROOT)) {
          case "constant" -> b.poisson(false);
          case "poisson" -> b.poisson(true);
          default -> throw new IllegalArgumentException("--arrivals: " + value + " (expected: constant or poisson)");
        }
      }
      case "--duration" -> b.durationNanos(Durations.parseNanos(value));
      case "--timeout" -> b.timeoutNanos(Durations.parseNanos(value));
      case "--deadline" -> b.enforceTimeout(Flags.enforceDeadline(value));
      case "--late-answers" -> {
        switch (value.toLowerCase(Locale.ROOT)) {
          case "feed" -> b.lateAnswers(true);
          case "drop" -> b.lateAnswers(false);
          default -> throw new IllegalArgumentException("--late-answers: " + value + " (expected: feed or drop)");
        }
      }
      case "--retries" -> b.retries(Flags.parseInt(flag, value, 0));
      case "--try-timeout" -> b.tryTimeoutNanos(Durations.parseNanos(value));
      case "--backup-after" -> b.backupAfterNanos(Durations.parseNanos(value));
      case "--seed" -> {
        o.seed = Flags.parseLong(flag, value);
        b.seed(o.seed);
      }
      case "--name" -> b.name(value);
      case "--balancers" -> o.balancers = parseBalancers(value);
      case "--json" -> o.json = Path.of(value);
      case "--chart" -> {
        o.chartSet = true;
        o.chart = value.equalsIgnoreCase("none") ? null : Path.of(value);
      }
      default -> throw new IllegalArgumentException("flag: " + flag + " (unknown)");
    }
  }

  /** Parses {@code all} or a comma-separated list of algorithm names. */
  public static List<Algorithm> parseBalancers(String value) {
    if (value.trim().equalsIgnoreCase("all")) {
      return List.of(Algorithm.values());
    }
    List<Algorithm> list = new ArrayList<>();
    for (String name : value.split(",")) {
      if (!name.isBlank()) {
        list.add(Algorithm.fromName(name));
      }
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("--balancers: " + value + " (expected: at least one name)");
    }
    return list;
  }
}

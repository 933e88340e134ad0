package dev.ballast.compare;

import dev.ballast.demo.HostLoad;
import dev.ballast.sim.Durations;
import dev.ballast.sim.Flags;
import dev.ballast.sim.LatencyChart;
import dev.ballast.sim.LatencyDistribution;
import dev.ballast.sim.Result;
import dev.ballast.sim.SlowWindow;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./ballast compare [flags]}: the demo's experiment through Ballast's clients and the peer
 * clients users would pick instead, each client in its own JVM on its own class path, against
 * the same servers in this JVM ({@link Backends}), then the same healthy fleet at fixed
 * concurrency for the cost of a call.
 *
 * <p>The slow run: 11 backends answering in normal(20 ms, 0.6 ms), backend 0 in 240 ms for the
 * middle half of the measured window, 1000 calls a second (an open loop) for 20 s after a 3 s
 * warm-up on the healthy fleet, a 120 ms deadline set in each client; every other setting at the
 * client's default. Per client: success within the deadline, p50/p99/p99.9, the share of the
 * calls received while backend 0 was slow that went to it, and the client process's CPU time
 * per call. Before each run, the servers are warmed up for 10 s over every protocol (from this
 * JVM, uncounted), so that the first client does not pay for compiling them. The healthy run: backends answering at once, a closed loop at each concurrency for
 * 5 s after 5 s of warm-up: calls a second, calls per CPU-second of the client process, p99.
 */
public final class Compare {

  private static final String HELP = """
      usage: ./ballast compare [flags]
        --mode M             slow (the demo's experiment), healthy (cost per call), or all (default)
        --clients TEXT       only the clients whose name contains one of these comma-separated
                             words, case-insensitive (default: all; --list names them)
        --list               print the clients of both runs and exit
        --rate R             slow run: calls per second (default 1000)
        --duration D         slow run: measured window (default 20s; backend 0 slow in its middle half)
        --warmup D           slow run: warm-up on the healthy fleet, not counted (default 3s)
        --timeout D          slow run: the deadline every client sets (default 120ms)
        --concurrency LIST   healthy run: calls kept in flight (default 1,16,256)
        --healthy-duration D healthy run: measured window per point, after a warm-up as long (default 5s)
        --chart FILE         SVG chart of the slow run (default target/ballast-compare.svg; none: no chart)
        --driver-jvm-args A  more JVM arguments for every driver, space-separated (e.g. a profiler's
                             -agentpath:...)
        --peers DIR          where ./ballast compare built the peers' class paths
      Peers (pinned in benchmarks/compare/peers/<peer>/pom.xml): Finagle 24.2.0 (finagle-http),
      Armeria 1.40.0, Reactor Netty 1.3.7; gRPC-java and Spring Cloud LoadBalancer at Ballast's
      versions (1.85.1, 5.0.2 on Spring Boot 4.1.2).
      """;

  // the servers' own warm-up before the first client of each run, so that it pays for no JIT
  private static final long SERVER_WARMUP_NANOS = 10_000_000_000L;

  private Compare() {}

  /** Runs the comparison; exits with status 2 on a bad flag. */
  public static void main(String[] args) throws Exception {
    Settings s = Flags.parseOrExit("compare", () -> Settings.parse(args));
    if (s.help) {
      System.out.print(HELP);
      return;
    }
    if (s.list) {
      System.out.println("slow run:");
      Contender.SLOW.forEach(c -> System.out.println("  " + c.name()));
      System.out.println("healthy run:");
      Contender.HEALTHY.forEach(c -> System.out.println("  " + c.name()));
      return;
    }
    run(s, System.out);
    System.exit(0);
  }

  static void run(Settings s, PrintStream out) throws Exception {
    long started = System.nanoTime();
    out.println(HostLoad.describe("start"));
    DriverProcess drivers = new DriverProcess(s.peers, Path.of("target", "compare"), s.jvmArgs);
    if (s.slow) {
      slow(s, drivers, out);
    }
    if (s.healthy) {
      healthy(s, drivers, out);
    }
    out.println(HostLoad.describe("end"));
    out.printf(Locale.ROOT, "(compare took %.0f s)%n", (System.nanoTime() - started) / 1e9);
  }

  private static void slow(Settings s, DriverProcess drivers, PrintStream out) throws Exception {
    long d = s.durationNanos;
    double loadAtStart = HostLoad.averages()[0];
    SlowWindow window = new SlowWindow(0, d / 4, d * 3 / 4, LatencyDistribution.constant(240_000_000L));
    out.printf(Locale.ROOT, "%n== slow run: 11 backends normal(20ms,600us), %s calls/s for %s after %s"
            + " of warm-up, deadline %s; backend 0 answers in 240ms from %s to %s%n",
        Flags.number(s.rate), Durations.format(d), Durations.format(s.warmupNanos),
        Durations.format(s.timeoutNanos), Durations.format(window.startNanos()),
        Durations.format(window.endNanos()));
    Map<String, String> load = new LinkedHashMap<>();
    load.put("rate", Flags.number(s.rate));
    load.put("warmup", Long.toString(s.warmupNanos / 1_000_000));
    load.put("duration", Long.toString(d / 1_000_000));
    load.put("timeout", Long.toString(s.timeoutNanos / 1_000_000));
    List<Result> results = new ArrayList<>();
    List<Double> shares = new ArrayList<>();
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
        "| client | success | p50 ms | p99 ms | p99.9 ms | to the slow backend | CPU µs per call |%n"
            + "|---|---:|---:|---:|---:|---:|---:|%n"));
    try (Backends backends = Backends.start(11, LatencyDistribution.normal(20_000_000L, 600_000L))) {
      backends.warmUp(SERVER_WARMUP_NANOS);
      for (Contender c : s.select(Contender.SLOW)) {
        if (skip(drivers, c, out)) {
          continue;
        }
        out.printf("  %-34s", c.name());
        DriverProcess.Outcome o = drivers.run(c, targets(backends, c), load, () -> backends.begin(window));
        Result r = o.result(c.name(), backends.received());
        double share = backends.slowShare();
        results.add(r);
        shares.add(share);
        String row = String.format(Locale.ROOT, "| %s | %.2f%% | %.1f | %.1f | %.1f | %.2f%% | %.1f |",
            c.name(), 100 * r.successRate(), r.percentileMillis(50), r.percentileMillis(99),
            r.percentileMillis(99.9), share, o.cpuMicrosPerCall());
        out.println(row.substring(row.indexOf('|', 2)) + (o.errors() > 0 ? "  " + o.errors() + " errors" : ""));
        table.append(row).append('\n');
      }
    }
    out.printf("%nslow run (share to the slow backend: of the calls received while it was slow; fair 9.09%%):%n%s",
        table);
    if (s.chart != null && !results.isEmpty()) {
      double[] sh = shares.stream().mapToDouble(Double::doubleValue).toArray();
      LatencyChart.write(s.chart, "Latency by client, one backend of 11 slow (127.0.0.1)",
          String.format(Locale.ROOT, "compare: %s calls/s for %s, backend 0 answers in 240ms from %s to %s,"
                  + " deadline %s; load average %.2f at the start, %.2f at the end (%d cores)",
              Flags.number(s.rate), Durations.format(d), Durations.format(window.startNanos()),
              Durations.format(window.endNanos()), Durations.format(s.timeoutNanos), loadAtStart,
              HostLoad.averages()[0], Runtime.getRuntime().availableProcessors()),
          s.timeoutNanos / 1e6, results, sh);
      out.println("chart: " + s.chart);
    }
  }

  private static void healthy(Settings s, DriverProcess drivers, PrintStream out) throws Exception {
    out.printf(Locale.ROOT, "%n== healthy run: 11 backends answering at once, a closed loop at"
        + " concurrency %s, %s each after as long a warm-up%n", s.concurrency, Durations.format(s.healthyNanos));
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
        "| client | concurrency | calls/s | calls per CPU-second | CPU µs per call | p99 ms |%n"
            + "|---|---:|---:|---:|---:|---:|%n"));
    try (Backends backends = Backends.start(11, null)) {
      backends.warmUp(SERVER_WARMUP_NANOS);
      for (int concurrency : s.concurrency) {
        Map<String, String> load = new LinkedHashMap<>();
        load.put("concurrency", Integer.toString(concurrency));
        load.put("warmup", Long.toString(s.healthyNanos / 1_000_000));
        load.put("duration", Long.toString(s.healthyNanos / 1_000_000));
        load.put("timeout", "10000");
        for (Contender c : s.select(Contender.HEALTHY)) {
          if (skip(drivers, c, out)) {
            continue;
          }
          out.printf("  %-34s", c.name() + " @" + concurrency);
          DriverProcess.Outcome o = drivers.run(c, targets(backends, c), load, () -> backends.begin(null));
          String row = String.format(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.1f | %.2f |", c.name(),
              concurrency, o.callsPerSecond(), o.callsPerCpuSecond(), o.cpuMicrosPerCall(),
              o.histogram().getValueAtPercentile(99) / 1000.0);
          out.println(row.substring(row.indexOf('|', 2)) + (o.errors() > 0 ? "  " + o.errors() + " errors" : ""));
          table.append(row).append('\n');
        }
      }
    }
    out.printf("%nhealthy run:%n%s", table);
  }

  private static boolean skip(DriverProcess drivers, Contender c, PrintStream out) {
    String why = drivers.missing(c);
    if (why != null) {
      out.printf("  %-34s skipped: %s%n", c.name(), why);
    }
    return why != null;
  }

  private static List<String> targets(Backends b, Contender c) {
    return c.protocol().equals("grpc") ? b.grpcTargets() : b.httpTargets();
  }

  /** The comparison's settings, from flags. */
  static final class Settings {
    boolean slow = true;
    boolean healthy = true;
    boolean help;
    boolean list;
    List<String> clients = List.of();
    double rate = 1000;
    long durationNanos = 20_000_000_000L;
    long warmupNanos = 3_000_000_000L;
    long timeoutNanos = 120_000_000L;
    List<Integer> concurrency = List.of(1, 16, 256);
    long healthyNanos = 5_000_000_000L;
    Path chart = Path.of("target", "ballast-compare.svg");
    Path peers = Path.of("benchmarks", "target", "compare-peers");
    List<String> jvmArgs = List.of();

    List<Contender> select(List<Contender> all) {
      if (clients.isEmpty()) {
        return all;
      }
      return all.stream().filter(c -> clients.stream().anyMatch(w ->
          c.name().toLowerCase(Locale.ROOT).contains(w.toLowerCase(Locale.ROOT)))).toList();
    }

    static Settings parse(String[] args) {
      Settings s = new Settings();
      try {
        Flags.forEach(List.of(args), Set.of("--help", "-h", "--list"), s::apply);
      } catch (IOException e) {
        throw new UncheckedIOException(e); // no flag reads a file
      }
      if (s.durationNanos < 1_000_000_000L || s.healthyNanos < 1_000_000_000L) {
        throw new IllegalArgumentException("--duration and --healthy-duration: expected >= 1s");
      }
      return s;
    }

    private void apply(String flag, String value) {
      switch (flag) {
        case "--help", "-h" -> help = true;
        case "--list" -> list = true;
        case "--mode" -> {
          switch (value) {
            case "slow" -> healthy = false;
            case "healthy" -> slow = false;
            case "all" -> {
              slow = true;
              healthy = true;
            }
            default -> throw new IllegalArgumentException("--mode: " + value + " (expected: slow, healthy or all)");
          }
        }
        case "--clients" -> clients = List.of(value.split(","));
        case "--rate" -> {
          rate = Flags.parseDouble(flag, value);
          if (!(rate > 0) || rate > 100_000) {
            throw new IllegalArgumentException("--rate: " + value + " (expected: > 0 and <= 100000)");
          }
        }
        case "--duration" -> durationNanos = Durations.parseNanos(value);
        case "--warmup" -> warmupNanos = Durations.parseNanos(value);
        case "--timeout" -> timeoutNanos = Durations.parseNanos(value);
        case "--healthy-duration" -> healthyNanos = Durations.parseNanos(value);
        case "--concurrency" -> {
          List<Integer> c = new ArrayList<>();
          for (String v : value.split(",")) {
            c.add(Flags.parseInt(flag, v.trim(), 1));
          }
          concurrency = List.copyOf(c);
        }
        case "--chart" -> chart = value.equalsIgnoreCase("none") ? null : Path.of(value);
        case "--peers" -> peers = Path.of(value);
        case "--driver-jvm-args" -> jvmArgs = List.of(value.trim().split("\\s+"));
        default -> throw new IllegalArgumentException("flag: " + flag + " (unknown)");
      }
    }
  }
}

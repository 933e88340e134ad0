package dev.ballast.bench.live;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The live twin of the simulator's {@code capacity} scenario: four real servers on 127.0.0.1 of
 * capacities 1 : 1 : 2 : 4 cores ({@link CapacityServer}: 4 ms of work per request on one core,
 * FIFO beyond), each reporting its own utilization once a second, over HTTP/2 to lb-netty
 * (Envoy's {@code endpoint-load-metrics} header) and over gRPC (ORCA, through {@code
 * ServerLoadReporting}). Per policy: fresh servers, one client, an open-loop load at 65% of the
 * total capacity (1,300 calls a second) with a 1 s deadline, no retries and no outlier
 * detection; 3 s of warm-up, then {@code seconds} measured: each server's mean utilization over
 * the measured time, max / mean of them (Dropbox's Robinhood measure), and the latency
 * percentiles of the calls sent in it (failed ones at the time they failed).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.live.LiveCapacity [seconds] [http|grpc|framed|both] [policies] [warm-up seconds]
 * </pre>
 *
 * <p>{@code framed}: lb-netty's framed protocol, the servers' reports in {@code LOAD_REPORT}
 * frames ({@link FramedTransport}); {@code ./ballast demo --capacity} runs it. Defaults: 10
 * measured seconds, both HTTP/2 and gRPC, all their policies (or those of the
 * comma-separated list, {@code all} for all), 3 s of warm-up. The weighted round robin policies, ours and
 * gRPC's, run with a blackout period of 1 s instead of 10 s, so that weights are in force
 * within the warm-up.
 */
public final class LiveCapacity {

  static final int[] CORES = {1, 1, 2, 4};
  static final long SERVICE_NANOS = TimeUnit.MILLISECONDS.toNanos(4);
  static final double LOAD = 0.65;
  static final Duration DEADLINE = Duration.ofSeconds(1);
  static final Duration BLACKOUT = Duration.ofSeconds(1);

  static final List<String> HTTP_POLICIES = List.of("round_robin", "least_loaded",
      "p2c_peak_ewma", "weighted_round_robin", "p2c_utilization");
  static final List<String> GRPC_POLICIES = List.of("round_robin", "weighted_round_robin",
      "ballast_weighted_round_robin", "p2c_utilization", "p2c_peak_ewma");

  static final List<String> FRAMED_POLICIES = HTTP_POLICIES;

  private LiveCapacity() {}

  /** Calls to one set of servers through one client. */
  interface Cluster extends AutoCloseable {
    /** Sends one call; the future ends when it does, exceptionally if it failed. */
    CompletableFuture<?> call();

    @Override
    void close() throws Exception;
  }

  /** Starts servers over the given work and a client of the given policy to them. */
  interface Transport {
    Cluster open(String policy, List<CapacityServer> servers) throws Exception;
  }

  /** Runs the table of each transport; arguments: measured seconds (10), http|grpc|both, policies. */
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
    String which = args.length > 1 ? args[1] : "both";
    List<String> only = args.length > 2 && !args[2].equals("all")
        ? List.of(args[2].split(",")) : null;
    double warmUp = args.length > 3 ? Double.parseDouble(args[3]) : 3;
    if (seconds <= 0 || warmUp < 0
        || !List.of("http", "grpc", "framed", "both").contains(which)) {
      throw new IllegalArgumentException("usage: LiveCapacity [seconds > 0]"
          + " [http|grpc|framed|both] [policies|all] [warm-up seconds >= 0], got: "
          + String.join(" ", args));
    }
    long warmUpNanos = Math.round(warmUp * 1e9);
    long measureNanos = Math.round(seconds * 1e9);
    PrintStream out = System.out;
    out.printf(Locale.ROOT, "servers of 1:1:2:4 cores on 127.0.0.1, %d ms per request,"
            + " open loop at %.0f%% of capacity (%.0f calls/s), deadline %d ms, no retries;"
            + " %.0f s warm-up, %.1f s measured per policy; weighted_round_robin policies with a"
            + " blackout of %d s (default 10 s)%n", SERVICE_NANOS / 1_000_000, LOAD * 100, rate(),
        DEADLINE.toMillis(), warmUp, seconds, BLACKOUT.toSeconds());
    if (which.equals("framed")) {
      framedTable(out, only == null ? FRAMED_POLICIES : only, warmUpNanos, measureNanos);
      return;
    }
    if (!which.equals("grpc")) {
      table(out, "HTTP/2, lb-netty (endpoint-load-metrics header)", new HttpTransport(),
          only == null ? HTTP_POLICIES : only, warmUpNanos, measureNanos);
    }
    if (!which.equals("http")) {
      table(out, "gRPC (ORCA per-call reports)", new GrpcTransport(),
          only == null ? GRPC_POLICIES : only, warmUpNanos, measureNanos);
    }
  }

  /**
   * Prints the table of lb-netty's framed protocol (the servers' reports in {@code LOAD_REPORT}
   * frames) for these policies, each with {@code warmUpNanos} of warm-up and {@code
   * measureNanos} measured, after a first unshown second; for {@code ./ballast demo --capacity}.
   */
  public static void framedTable(PrintStream out, List<String> policies, long warmUpNanos,
      long measureNanos) throws Exception {
    table(out, "lb-netty framed protocol (LOAD_REPORT frames)", new FramedTransport(), policies,
        warmUpNanos, measureNanos);
  }

  /** Returns the calls per second of a run: 65% of the servers' total capacity, 1,300. */
  public static double rate() {
    return LOAD * Arrays.stream(CORES).sum() * 1e9 / SERVICE_NANOS;
  }

  private static void table(PrintStream out, String title, Transport transport,
      List<String> policies, long warmUpNanos, long measureNanos) throws Exception {
    out.printf(Locale.ROOT, "%n%s%n%-30s %-23s %8s %8s %8s %8s%n", title, "policy",
        "utilization per server", "max/mean", "p50 ms", "p99 ms", "failed");
    // a first run, not shown, so that the JIT and the connections of the transport are warm for
    // the first policy as for the others
    run(transport, policies.get(0), warmUpNanos, TimeUnit.SECONDS.toNanos(1));
    for (String policy : policies) {
      out.println(run(transport, policy, warmUpNanos, measureNanos).row(policy));
    }
  }

  /** One policy's outcome: the servers' utilization over the measured time, and latencies. */
  record Outcome(double[] utilization, Histogram latency, long calls, long failed) {
    String row(String policy) {
      double max = Arrays.stream(utilization).max().orElse(0);
      double mean = Arrays.stream(utilization).average().orElse(0);
      StringBuilder each = new StringBuilder();
      for (double u : utilization) {
        each.append(String.format(Locale.ROOT, "%.2f ", u));
      }
      return String.format(Locale.ROOT, "%-30s %-23s %8.2f %8.1f %8.1f %7.2f%%", policy,
          each.toString().trim(), max / mean, latency.getValueAtPercentile(50) / 1e3,
          latency.getValueAtPercentile(99) / 1e3, 100.0 * failed / Math.max(1, calls));
    }
  }

  static Outcome run(Transport transport, String policy, long warmUpNanos, long measureNanos)
      throws Exception {
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "live-capacity-servers");
      t.setDaemon(true);
      return t;
    });
    List<CapacityServer> servers = new ArrayList<>();
    for (int c : CORES) {
      servers.add(new CapacityServer(c, SERVICE_NANOS, clock));
    }
    Histogram latency = new ConcurrentHistogram(3);
    AtomicLong failed = new AtomicLong();
    AtomicLong ended = new AtomicLong();
    long sent = 0;
    double[] utilization = new double[servers.size()];
    try (Cluster cluster = transport.open(policy, servers)) {
      double gap = 1e9 / rate();
      long start = System.nanoTime();
      long from = start + warmUpNanos;
      long end = from + measureNanos;
      long[] busyFrom = null;
      long measuredFrom = 0;
      for (long n = 0; ; n++) {
        long due = start + Math.round(n * gap);
        if (due >= end) {
          break;
        }
        for (long wait; (wait = due - System.nanoTime()) > 0; ) {
          LockSupport.parkNanos(wait);
        }
        boolean measured = due >= from;
        if (measured && busyFrom == null) {
          busyFrom = busy(servers);
          measuredFrom = System.nanoTime();
        }
        long t0 = System.nanoTime();
        CompletableFuture<?> call = cluster.call();
        if (measured) {
          sent++;
          call.whenComplete((r, e) -> {
            latency.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
            if (e != null) {
              failed.incrementAndGet();
            }
            ended.incrementAndGet();
          });
        }
      }
      long[] busyTo = busy(servers);
      double window = System.nanoTime() - measuredFrom;
      for (int i = 0; i < utilization.length; i++) {
        utilization[i] = busyFrom == null ? 0
            : (busyTo[i] - busyFrom[i]) / (servers.get(i).cores() * window);
      }
      long giveUp = System.nanoTime() + DEADLINE.toNanos() + TimeUnit.SECONDS.toNanos(2);
      while (ended.get() < sent && System.nanoTime() < giveUp) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    } finally {
      servers.forEach(CapacityServer::stop);
      clock.shutdownNow();
    }
    // calls that never ended count as failed at the deadline
    for (long i = ended.get(); i < sent; i++) {
      failed.incrementAndGet();
      latency.recordValue(DEADLINE.toNanos() / 1000);
    }
    return new Outcome(utilization, latency, sent, failed.get());
  }

  private static long[] busy(List<CapacityServer> servers) throws InterruptedException {
    long[] b = new long[servers.size()];
    for (int i = 0; i < b.length; i++) {
      b[i] = servers.get(i).busyNanos();
    }
    return b;
  }
}

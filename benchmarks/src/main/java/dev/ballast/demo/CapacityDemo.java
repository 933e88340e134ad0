package dev.ballast.demo;

import dev.ballast.bench.live.LiveCapacity;
import dev.ballast.core.Algorithm;
import dev.ballast.sim.Durations;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./ballast demo --capacity}: backends of unequal capacity (1 : 1 : 2 : 4 cores of
 * CPU-bound work, 4 ms a request) as real framed servers on 127.0.0.1 that report their load
 * ({@code FramedServer.Builder.reportLoad}: utilization, qps, eps), called at 65% of their total
 * capacity through one lb-netty client per policy; prints each server's utilization, the
 * busiest over the mean (1.00: evenly loaded) and the p50 and p99 latency per policy. The
 * report-driven policies ({@code weighted_round_robin}, {@code p2c_utilization}) run with a
 * blackout period of 1 s. The simulator's twin is {@code ./ballast simulate --scenario capacity}.
 *
 * <p>Defaults: round robin, least loaded, P2C peak EWMA and the report-driven policies; 4 s of
 * warm-up and 5 s measured per policy (about 50 s in all); {@code --balancers}, {@code
 * --warmup} and {@code --duration} change them.
 */
final class CapacityDemo {

  static final List<Algorithm> POLICIES = List.of(Algorithm.ROUND_ROBIN, Algorithm.LEAST_LOADED,
      Algorithm.P2C_PEAK_EWMA, Algorithm.WEIGHTED_ROUND_ROBIN, Algorithm.P2C_UTILIZATION);
  static final long WARMUP_NANOS = 4_000_000_000L;
  static final long DURATION_NANOS = 5_000_000_000L;

  final List<Algorithm> policies;
  final long warmUpNanos;
  final long measureNanos;

  /** The settings of {@code --capacity}: the demo's own flags where given, else its defaults. */
  CapacityDemo(Demo.DemoConfig c) {
    this.policies = c.given.contains("--balancers") ? c.balancers : POLICIES;
    this.warmUpNanos = c.given.contains("--warmup") ? c.warmupNanos : WARMUP_NANOS;
    this.measureNanos = c.given.contains("--duration") ? c.durationNanos : DURATION_NANOS;
  }

  /** What the run does and about how long it takes. */
  String describe() {
    // each policy: warm-up and measured time; first, an unshown run of warm-up and 1 s
    long total = policies.size() * (warmUpNanos + measureNanos) + warmUpNanos + 1_000_000_000L;
    return String.format(Locale.ROOT, "servers of 1:1:2:4 cores on 127.0.0.1 reporting their"
        + " load, 4 ms a request, %.0f calls/s (65%% of capacity); %s warm-up and %s measured per"
        + " policy; %s; about %s", LiveCapacity.rate(), Durations.format(warmUpNanos),
        Durations.format(measureNanos),
        String.join(", ", policies.stream().map(Algorithm::id).toList()),
        Durations.format(total));
  }

  void run(PrintStream out) throws Exception {
    out.println("ballast demo --capacity: " + describe());
    LiveCapacity.framedTable(out, policies.stream().map(Algorithm::id).toList(), warmUpNanos,
        measureNanos);
    out.println("max/mean: the busiest server's utilization over the mean (1.00: evenly loaded);"
        + " latency of the measured calls, failed ones at the 1 s deadline");
  }
}

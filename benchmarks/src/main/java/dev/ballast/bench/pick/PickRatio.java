package dev.ballast.bench.pick;

import dev.ballast.bench.grpc.PickerBenchmark;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Pick costs as ratios measured by alternation, so that a noisy machine cancels out: the two
 * sides of a pair take turns in windows of 200 ms of the thread's CPU time (A then B, then B then
 * A), each window timing its side's operation, and the pair's result is the median over the
 * rounds of A's CPU ns per operation divided by B's. CPU time rather than wall time, so that the
 * time the thread spends descheduled on a loaded machine counts for neither side. Each pair runs
 * in a JVM of its own (as a JMH fork), so that neither side's call sites see the other's
 * classes.
 *
 * <p>A side is {@code grpc:POLICY@N} ({@link PickerBenchmark}'s call: a pick and, if any, the
 * stream tracer's life, over N READY subchannels) or {@code core:ALGORITHM@N} ({@link
 * PickBenchmark}'s pick and completion, or Armeria's selection, over N weighted endpoints;
 * {@code core:ALGORITHM+ramp@N} with a tenth of them in a slow-start ramp at its 10% floor,
 * {@code core:ALGORITHM+rampF@N} at a floor of F percent), or {@code clock:nanoTime@K}, K
 * readings of {@link System#nanoTime()} and nothing else: what the clock alone costs a policy
 * that times its calls. A pair is {@code A/B}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.pick.PickRatio [rounds] [pair...]
 * </pre>
 *
 * <p>Without pairs, it runs {@link #DEFAULT_PAIRS}: ours against gRPC's and Armeria's pickers at
 * 10, 100 and 1000 subchannels or endpoints (weighted round robin from ORCA reports, ours
 * against gRPC's, with weights in force), VNSWRR at 10,000 endpoints against 10, and each
 * algorithm during a ramp against itself without. Rounds default to 15.
 */
public final class PickRatio {

  /** The pairs run when none is given. */
  public static final List<String> DEFAULT_PAIRS = defaultPairs();

  private static final long WINDOW_NANOS = 200_000_000L;

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private static Object sink;

  private static long clockSink;

  private PickRatio() {}

  private static List<String> defaultPairs() {
    List<String> pairs = new ArrayList<>();
    for (int n : new int[] {10, 100, 1000}) {
      pairs.add("grpc:vnswrr@" + n + "/grpc:round_robin@" + n);
      pairs.add("grpc:vnswrr@" + n + "/grpc:weighted_round_robin@" + n);
      pairs.add("grpc:vnswrr_weighted@" + n + "/grpc:weighted_round_robin@" + n);
      pairs.add("grpc:least_loaded@" + n + "/grpc:least_request_experimental@" + n);
      pairs.add("grpc:p2c_peak_ewma@" + n + "/grpc:round_robin@" + n);
      pairs.add("clock:nanoTime@2/grpc:round_robin@" + n);
      pairs.add("grpc:label_subset_header@" + n + "/grpc:round_robin@" + n);
      pairs.add("core:vnswrr@" + n + "/core:armeria_weighted_round_robin@" + n);
      pairs.add("core:vnswrr+ramp@" + n + "/core:armeria_ramping_up@" + n);
      pairs.add("grpc:ballast_weighted_round_robin_reported@" + n
          + "/grpc:weighted_round_robin_reported@" + n);
      pairs.add("core:weighted_round_robin@" + n + "/core:vnswrr@" + n);
    }
    pairs.add("grpc:p2c_peak_ewma@100/grpc:least_loaded@100");
    pairs.add("core:vnswrr@10000/core:vnswrr@10");
    for (String a : new String[] {"round_robin", "weighted_random", "swrr", "vnswrr",
        "least_loaded", "p2c_peak_ewma"}) {
      pairs.add("core:" + a + "+ramp@100/core:" + a + "@100");
    }
    return pairs;
  }

  /** Runs the pairs (each in a JVM of its own), or one pair in this JVM with {@code --here}. */
  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    boolean here = rest.remove("--here");
    int rounds = !rest.isEmpty() && rest.get(0).matches("\\d+")
        ? Integer.parseInt(rest.remove(0)) : 15;
    if (here) {
      for (String pair : rest) {
        System.out.println(runPair(pair, rounds));
      }
      return;
    }
    List<String> pairs = rest.isEmpty() ? DEFAULT_PAIRS : rest;
    System.out.println("load average at start: " + loadAverage());
    for (String pair : pairs) {
      String java = ProcessHandle.current().info().command().orElse("java");
      List<String> command = new ArrayList<>(List.of(java, "-cp",
          System.getProperty("java.class.path")));
      // Ballast's own switches (-Dballast.grpc.metrics.endpointPicks=true) go to the child
      System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("ballast."))
          .sorted().forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
      command.addAll(List.of(PickRatio.class.getName(), "--here", Integer.toString(rounds), pair));
      Process p = new ProcessBuilder(command)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(pair + ": exit " + p.exitValue());
      }
    }
    System.out.println("load average at end: " + loadAverage());
  }

  private static String runPair(String pair, int rounds) throws Exception {
    String[] sides = pair.split("/");
    if (sides.length != 2) {
      throw new IllegalArgumentException("pair: " + pair + " (expected: A/B)");
    }
    Supplier<Object> a = side(sides[0]);
    Supplier<Object> b = side(sides[1]);
    for (int i = 0; i < 10; i++) { // warm-up: 2 s a side
      nanosPerOp(a);
      nanosPerOp(b);
    }
    double[] ratios = new double[rounds];
    double[] as = new double[rounds];
    double[] bs = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      if (r % 2 == 0) {
        as[r] = nanosPerOp(a);
        bs[r] = nanosPerOp(b);
      } else {
        bs[r] = nanosPerOp(b);
        as[r] = nanosPerOp(a);
      }
      ratios[r] = as[r] / bs[r];
    }
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%-70s median %.3f (min %.3f, max %.3f; A %.1f ns, B %.1f ns;"
        + " %d rounds, load %s)", pair, median(ratios), sorted[0], sorted[rounds - 1], median(as),
        median(bs), rounds, loadAverage());
  }

  private static Supplier<Object> side(String spec) {
    int colon = spec.indexOf(':');
    int at = spec.lastIndexOf('@');
    if (colon < 0 || at < colon) {
      throw new IllegalArgumentException(
          "side: " + spec + " (expected: grpc:POLICY@N, core:ALGORITHM@N or clock:nanoTime@K)");
    }
    String suite = spec.substring(0, colon);
    String name = spec.substring(colon + 1, at);
    int n = Integer.parseInt(spec.substring(at + 1));
    switch (suite) {
      case "grpc": {
        PickerBenchmark b = new PickerBenchmark();
        b.policy = name;
        b.subchannels = n;
        b.setUp();
        return b::call;
      }
      case "core": {
        PickBenchmark b = new PickBenchmark();
        int ramp = name.indexOf("+ramp");
        b.ramp = ramp >= 0 ? "on" : "off";
        b.algorithm = ramp >= 0 ? name.substring(0, ramp) : name;
        if (ramp >= 0 && name.length() > ramp + 5) {
          b.floor = Double.parseDouble(name.substring(ramp + 5));
        }
        b.n = n;
        b.setUp();
        return b::pickComplete;
      }
      case "clock": {
        if (!name.equals("nanoTime") || n < 1) {
          throw new IllegalArgumentException("side: " + spec + " (expected: clock:nanoTime@K)");
        }
        return () -> {
          long sum = 0;
          for (int i = 0; i < n; i++) {
            sum += System.nanoTime();
          }
          clockSink = sum;
          return spec;
        };
      }
      default:
        throw new IllegalArgumentException(
            "side: " + spec + " (expected: grpc:, core: or clock:)");
    }
  }

  private static double nanosPerOp(Supplier<Object> op) {
    long start = CPU.getCurrentThreadCpuTime();
    long end = start + WINDOW_NANOS;
    long ops = 0;
    long now;
    do {
      for (int i = 0; i < 1000; i++) {
        sink = op.get();
      }
      ops += 1000;
      now = CPU.getCurrentThreadCpuTime();
    } while (now < end);
    return (double) (now - start) / ops;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return (v[(v.length - 1) / 2] + v[v.length / 2]) / 2;
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}

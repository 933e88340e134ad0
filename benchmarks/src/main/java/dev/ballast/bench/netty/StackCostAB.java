package dev.ballast.bench.netty;

import dev.ballast.bench.netty.StackCostRatio.Window;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

/**
 * Compares two builds of the client stack in one JVM: each benchmarks jar is loaded in a class
 * loader of its own (so each has its own lb-netty and Netty), and one-second windows of their
 * {@link StackCostBenchmark#stack()} take turns (in alternating order), so that load from other
 * processes hits both alike; prints each round and the medians of B / A, of calls per second and
 * of the process's CPU time per call (steadier under load: it counts only this process's work,
 * servers included). For a before/after of a change on a noisy machine, where separate runs
 * swing more than the change.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.netty.StackCostAB \
 *     before.jar after.jar [rounds]
 * </pre>
 */
public final class StackCostAB {

  private StackCostAB() {}

  /** Runs the comparison; arguments: jar A, jar B, rounds (default 20). */
  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: StackCostAB A.jar B.jar [rounds]");
      System.exit(2);
    }
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    Object[] benchmark = new Object[2];
    Method[] stack = new Method[2];
    for (int i = 0; i < 2; i++) {
      ClassLoader loader = new URLClassLoader(new URL[] {Path.of(args[i]).toUri().toURL()}, null);
      Class<?> c = Class.forName(StackCostBenchmark.class.getName(), true, loader);
      benchmark[i] = c.getConstructor().newInstance();
      c.getField("balancer").set(benchmark[i], "p2c_peak_ewma");
      c.getField("backends").setInt(benchmark[i], 4);
      c.getMethod("setUp").invoke(benchmark[i]);
      stack[i] = c.getMethod("stack");
    }
    for (int w = 0; w < 3; w++) {
      Window.of(() -> stack[0].invoke(benchmark[0]));
      Window.of(() -> stack[1].invoke(benchmark[1]));
    }
    double[] ratios = new double[rounds];
    double[] cpuRatios = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      boolean aFirst = r % 2 == 0;
      int f = aFirst ? 0 : 1;
      Window first = Window.of(() -> stack[f].invoke(benchmark[f]));
      Window second = Window.of(() -> stack[1 - f].invoke(benchmark[1 - f]));
      Window a = aFirst ? first : second;
      Window b = aFirst ? second : first;
      ratios[r] = b.callsPerSecond() / a.callsPerSecond();
      cpuRatios[r] = b.cpuNanosPerCall() / a.cpuNanosPerCall();
      System.out.printf("round %2d: A %,9.0f  B %,9.0f calls/s  B/A %.3f;  CPU per call A %,6.0f"
          + "  B %,6.0f ns  B/A %.3f%n", r + 1, a.callsPerSecond(), b.callsPerSecond(), ratios[r],
          a.cpuNanosPerCall(), b.cpuNanosPerCall(), cpuRatios[r]);
    }
    System.out.printf("median B/A over %d rounds: %.3f calls/s, %.3f CPU per call%n", rounds,
        StackCostRatio.median(ratios), StackCostRatio.median(cpuRatios));
    System.exit(0); // the two copies' event loops are never shut down
  }

}

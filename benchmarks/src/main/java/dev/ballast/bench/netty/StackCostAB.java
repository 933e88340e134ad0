package dev.ballast.bench.netty;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Compares two builds of the client stack in one JVM: each benchmarks jar is loaded in a class
 * loader of its own (so each has its own lb-netty and Netty), and one-second windows of their
 * {@link StackCostBenchmark#stack()} take turns (in alternating order), so that load from other
 * processes hits both alike; prints each round and the median of B / A. For a before/after of a
 * change on a noisy machine, where separate runs swing more than the change.
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
      rate(benchmark[0], stack[0]);
      rate(benchmark[1], stack[1]);
    }
    double[] ratios = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      boolean aFirst = r % 2 == 0;
      double first = rate(benchmark[aFirst ? 0 : 1], stack[aFirst ? 0 : 1]);
      double second = rate(benchmark[aFirst ? 1 : 0], stack[aFirst ? 1 : 0]);
      double a = aFirst ? first : second;
      double b = aFirst ? second : first;
      ratios[r] = b / a;
      System.out.printf("round %2d: A %,9.0f  B %,9.0f calls/s  B/A %.3f%n", r + 1, a, b,
          ratios[r]);
    }
    Arrays.sort(ratios);
    System.out.printf("median B/A over %d rounds: %.3f%n", rounds,
        (ratios[(rounds - 1) / 2] + ratios[rounds / 2]) / 2);
    System.exit(0); // the two copies' event loops are never shut down
  }

  // Calls per second of one stack over a one-second window.
  private static double rate(Object benchmark, Method stack) throws Exception {
    long start = System.nanoTime();
    long end = start + 1_000_000_000L;
    long calls = 0;
    while (System.nanoTime() < end) {
      stack.invoke(benchmark);
      calls += StackCostBenchmark.IN_FLIGHT;
    }
    return calls * 1e9 / (System.nanoTime() - start);
  }
}

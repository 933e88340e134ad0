package dev.ballast.bench.netty;

import java.util.Arrays;

/**
 * The stack-cost ratio measured by alternation: one-second windows of the raw channel and of
 * the full stack take turns, so that load from other processes hits both alike; prints each
 * round's calls per second and the median ratio stack / raw. Complements the JMH benchmark on
 * a noisy machine.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.netty.StackCostRatio [rounds] [balancer] [backends]
 * </pre>
 */
public final class StackCostRatio {

  private StackCostRatio() {}

  /** Runs the alternation; arguments: rounds (default 10), balancer (default p2c_peak_ewma),
   * backends of the stack (default 4). */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    StackCostBenchmark b = new StackCostBenchmark();
    b.balancer = args.length > 1 ? args[1] : "p2c_peak_ewma";
    b.backends = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    b.setUp();
    try {
      // Warm-up: both paths, a few seconds each.
      for (int i = 0; i < 3; i++) {
        rate(b, false);
        rate(b, true);
      }
      double[] ratios = new double[rounds];
      double rawSum = 0;
      double stackSum = 0;
      for (int r = 0; r < rounds; r++) {
        double raw = rate(b, false);
        double stack = rate(b, true);
        rawSum += raw;
        stackSum += stack;
        ratios[r] = stack / raw;
        System.out.printf("round %2d: raw %,9.0f calls/s  stack %,9.0f calls/s  ratio %.3f%n",
            r + 1, raw, stack, ratios[r]);
      }
      Arrays.sort(ratios);
      double median = (ratios[(rounds - 1) / 2] + ratios[rounds / 2]) / 2;
      System.out.printf("balancer %s, %d backends: mean raw %,.0f, mean stack %,.0f calls/s; "
          + "median ratio stack/raw %.3f (stack cost %.1f%%)%n", b.balancer, b.backends, rawSum / rounds,
          stackSum / rounds, median, (1 - median) * 100);
    } finally {
      b.tearDown();
    }
  }

  private static double rate(StackCostBenchmark b, boolean stack) throws Exception {
    long end = System.nanoTime() + 1_000_000_000L;
    long start = System.nanoTime();
    long calls = 0;
    while (System.nanoTime() < end) {
      if (stack) {
        b.stack();
      } else {
        b.rawChannel();
      }
      calls += StackCostBenchmark.IN_FLIGHT;
    }
    return calls * 1e9 / (System.nanoTime() - start);
  }
}

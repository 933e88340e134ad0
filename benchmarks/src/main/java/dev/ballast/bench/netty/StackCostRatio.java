package dev.ballast.bench.netty;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * The stack-cost ratio measured by alternation: one-second windows of the raw channel (plain,
 * batched, and batched over every backend) and of the full stack take turns, so that load from
 * other processes hits all alike; prints each round's calls per second and the median ratios
 * stack / raw-batched (the stack's cost against one batched channel), stack / raw-batched over
 * the same backends (the cost of the stack's own work, fan-out aside) and stack / raw, and the
 * process's CPU time per call of the batched variants and the stack ({@link Window}).
 * Complements the JMH benchmark on a noisy machine.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.netty.StackCostRatio [rounds] [balancer] [backends] [transport]
 * </pre>
 */
public final class StackCostRatio {

  private StackCostRatio() {}

  /**
   * Runs the alternation; arguments: rounds (default 10), balancer (default p2c_peak_ewma),
   * backends of the stack (default 4), transport (shared, epoll or nio; default shared).
   */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    StackCostBenchmark b = new StackCostBenchmark();
    b.balancer = args.length > 1 ? args[1] : "p2c_peak_ewma";
    b.backends = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    b.transport = args.length > 3 ? args[3] : "shared";
    b.setUp();
    try {
      for (int i = 0; i < 3; i++) {
        for (Variant v : Variant.values()) {
          rate(b, v);
        }
      }
      double[] ratios = new double[rounds];
      double[] fanOutRatios = new double[rounds];
      double[] naiveRatios = new double[rounds];
      double[] cpuRatios = new double[rounds];
      double[] cpuFanOutRatios = new double[rounds];
      double rawSum = 0;
      double batchedSum = 0;
      double fanOutSum = 0;
      double stackSum = 0;
      for (int r = 0; r < rounds; r++) {
        double raw = rate(b, Variant.RAW);
        Window batchedWindow = Window.of(() -> Variant.RAW_BATCHED.call(b));
        Window fanOutWindow = Window.of(() -> Variant.RAW_FAN_OUT.call(b));
        Window stackWindow = Window.of(() -> Variant.STACK.call(b));
        double batched = batchedWindow.callsPerSecond();
        double fanOut = fanOutWindow.callsPerSecond();
        double stack = stackWindow.callsPerSecond();
        cpuRatios[r] = stackWindow.cpuNanosPerCall() / batchedWindow.cpuNanosPerCall();
        cpuFanOutRatios[r] = stackWindow.cpuNanosPerCall() / fanOutWindow.cpuNanosPerCall();
        rawSum += raw;
        batchedSum += batched;
        fanOutSum += fanOut;
        stackSum += stack;
        ratios[r] = stack / batched;
        fanOutRatios[r] = stack / fanOut;
        naiveRatios[r] = stack / raw;
        System.out.printf("round %2d: raw %,9.0f  raw batched %,9.0f  fan-out %,9.0f  stack %,9.0f"
            + " calls/s  stack/batched %.3f  stack/fan-out %.3f;  CPU per call: batched %,.0f"
            + "  fan-out %,.0f  stack %,.0f ns%n", r + 1, raw, batched, fanOut, stack, ratios[r],
            fanOutRatios[r], batchedWindow.cpuNanosPerCall(), fanOutWindow.cpuNanosPerCall(),
            stackWindow.cpuNanosPerCall());
      }
      System.out.printf("transport %s, balancer %s, %d backends: mean raw %,.0f, raw batched %,.0f, raw batched"
          + " fan-out %,.0f, stack %,.0f calls/s; median stack/raw-batched %.3f (stack cost"
          + " %.1f%%), median stack/raw-batched-fan-out %.3f (%.1f%%), median stack/raw %.3f%n",
          b.transport, b.balancer, b.backends, rawSum / rounds, batchedSum / rounds, fanOutSum / rounds,
          stackSum / rounds, median(ratios), (1 - median(ratios)) * 100, median(fanOutRatios),
          (1 - median(fanOutRatios)) * 100, median(naiveRatios));
      System.out.printf("CPU time per call (the process's, servers included), median stack /"
          + " raw-batched %.3f, stack / raw-batched-fan-out %.3f%n", median(cpuRatios),
          median(cpuFanOutRatios));
    } finally {
      b.tearDown();
    }
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return (v[(v.length - 1) / 2] + v[v.length / 2]) / 2;
  }

  /** What one window runs. */
  enum Variant {
    RAW, RAW_BATCHED, RAW_FAN_OUT, STACK;

    void call(StackCostBenchmark b) throws Exception {
      switch (this) {
        case RAW -> b.rawChannel();
        case RAW_BATCHED -> b.rawChannelBatched();
        case RAW_FAN_OUT -> b.rawBatchedFanOut();
        case STACK -> b.stack();
        default -> throw new AssertionError(this);
      }
    }
  }

  // Calls per second of one variant over a one-second window.
  static double rate(StackCostBenchmark b, Variant v) throws Exception {
    return Window.of(() -> v.call(b)).callsPerSecond();
  }

  /**
   * One one-second window of 64-call invocations: calls per second, and the process's CPU time
   * per call (all its threads, servers included), which moves less than calls per second when
   * other processes take the cores, since it counts only this process's work.
   */
  record Window(double callsPerSecond, double cpuNanosPerCall) {

    /** What a window repeats: one invocation of {@value StackCostBenchmark#IN_FLIGHT} calls. */
    interface Invocation {
      void run() throws Exception;
    }

    static Window of(Invocation invocation) throws Exception {
      OperatingSystemMXBean os =
          (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long cpu = os.getProcessCpuTime();
      long start = System.nanoTime();
      long end = start + 1_000_000_000L;
      long calls = 0;
      while (System.nanoTime() < end) {
        invocation.run();
        calls += StackCostBenchmark.IN_FLIGHT;
      }
      long elapsed = System.nanoTime() - start;
      return new Window(calls * 1e9 / elapsed, (double) (os.getProcessCpuTime() - cpu) / calls);
    }
  }
}

package dev.ballast.bench.netty;

import dev.ballast.bench.netty.StackCostRatio.Variant;

/**
 * Native epoll against NIO by alternation: two {@link StackCostBenchmark} setups in one JVM, one
 * per transport (servers, client and raw channels all on it), take one-second windows in turns
 * with the full stack and with the batched raw channel; prints each round and the median ratios
 * epoll / NIO, so that load from other processes hits both transports alike.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.netty.StackCostTransports [rounds] [balancer]
 * </pre>
 */
public final class StackCostTransports {

  private StackCostTransports() {}

  /** Runs the alternation; arguments: rounds (default 10), balancer (default p2c_peak_ewma). */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    StackCostBenchmark epoll = setUp("epoll", args.length > 1 ? args[1] : "p2c_peak_ewma");
    StackCostBenchmark nio = setUp("nio", epoll.balancer);
    try {
      for (int i = 0; i < 3; i++) {
        for (Variant v : new Variant[] {Variant.STACK, Variant.RAW_BATCHED}) {
          StackCostRatio.rate(epoll, v);
          StackCostRatio.rate(nio, v);
        }
      }
      double[] stack = new double[rounds];
      double[] raw = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        // alternate which transport goes first, so that neither always follows the other
        boolean epollFirst = r % 2 == 0;
        double[] s = pair(epoll, nio, Variant.STACK, epollFirst);
        double[] b = pair(epoll, nio, Variant.RAW_BATCHED, epollFirst);
        stack[r] = s[0] / s[1];
        raw[r] = b[0] / b[1];
        System.out.printf("round %2d: stack epoll %,9.0f nio %,9.0f  raw batched epoll %,9.0f"
            + " nio %,9.0f calls/s  epoll/nio stack %.3f raw %.3f%n", r + 1, s[0], s[1], b[0], b[1],
            stack[r], raw[r]);
      }
      System.out.printf("balancer %s, %d backends: median epoll/nio, stack %.3f, raw batched"
          + " channel %.3f%n", epoll.balancer, epoll.backends, StackCostRatio.median(stack),
          StackCostRatio.median(raw));
    } finally {
      epoll.tearDown();
      nio.tearDown();
    }
  }

  private static StackCostBenchmark setUp(String transport, String balancer) throws Exception {
    StackCostBenchmark b = new StackCostBenchmark();
    b.transport = transport;
    b.balancer = balancer;
    b.setUp();
    return b;
  }

  // {epoll, nio} calls per second of one variant, one window each
  private static double[] pair(StackCostBenchmark epoll, StackCostBenchmark nio, Variant v,
      boolean epollFirst) throws Exception {
    double e;
    double n;
    if (epollFirst) {
      e = StackCostRatio.rate(epoll, v);
      n = StackCostRatio.rate(nio, v);
    } else {
      n = StackCostRatio.rate(nio, v);
      e = StackCostRatio.rate(epoll, v);
    }
    return new double[] {e, n};
  }
}

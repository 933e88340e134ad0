package dev.ballast.bench.grpc;

import java.util.Arrays;

/**
 * ballast_ring_hash against gRPC-java's ring_hash by alternation, for a noisy machine: windows
 * of {@code pickAndComplete} calls of the two pickers take turns (as in {@link
 * PickerBenchmark}: N READY subchannels, a different {@code x-key} header on each call), so load
 * from other processes hits both alike; prints each round's ns per call and the median ratio
 * ours / gRPC's.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.grpc.RingHashPickRatio \
 *     [rounds] [subchannels]
 * </pre>
 */
public final class RingHashPickRatio {

  private RingHashPickRatio() {}

  /** Runs the alternation; arguments: rounds (default 20), subchannels (default 100). */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int subchannels = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    PickerBenchmark grpc = state("ring_hash_experimental", subchannels);
    PickerBenchmark ours = state("ballast_ring_hash", subchannels);
    try {
      for (int i = 0; i < 5; i++) {
        nanosPerCall(grpc);
        nanosPerCall(ours);
      }
      double[] ratios = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        double g = nanosPerCall(grpc);
        double o = nanosPerCall(ours);
        ratios[r] = o / g;
        System.out.printf("round %2d: gRPC ring_hash %7.1f ns  ballast_ring_hash %7.1f ns"
            + "  ratio %.3f%n", r + 1, g, o, ratios[r]);
      }
      Arrays.sort(ratios);
      System.out.printf("%d subchannels: median ratio ballast_ring_hash / gRPC ring_hash %.3f"
          + " (min %.3f, max %.3f)%n", subchannels,
          (ratios[(rounds - 1) / 2] + ratios[rounds / 2]) / 2, ratios[0], ratios[rounds - 1]);
    } finally {
      grpc.tearDown();
      ours.tearDown();
    }
  }

  private static PickerBenchmark state(String policy, int subchannels) {
    PickerBenchmark b = new PickerBenchmark();
    b.policy = policy;
    b.subchannels = subchannels;
    b.setUp();
    return b;
  }

  /** Calls for about 200 ms; returns the mean nanoseconds per call. */
  private static double nanosPerCall(PickerBenchmark b) {
    long calls = 0;
    long start = System.nanoTime();
    long end = start + 200_000_000L;
    long now;
    int sink = 0;
    do {
      for (int i = 0; i < 1000; i++) {
        sink += b.callOnce().hashCode();
      }
      calls += 1000;
      now = System.nanoTime();
    } while (now < end);
    if (sink == 42) {
      System.out.print("");
    }
    return (now - start) / (double) calls;
  }
}

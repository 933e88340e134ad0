package dev.ballast.bench.hash;

import dev.ballast.bench.subset.SubsetData;
import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Node;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@link HashBenchmark}'s {@code build} and {@code pickHash} timed by the running thread's CPU
 * clock, so that time the machine's other processes take from it does not count: for a noisy
 * machine, beside the JMH figures. {@code build}: 300 updates over the same endpoints (weight 1)
 * after 200 to warm up; {@code pick}: 30 rounds of a million picks by hash (and their release)
 * after 10 to warm up, {@code round_robin} picking without a hash. Prints the median and the
 * 10th percentile.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.hash.HashCpuTime build|pick [algorithm] [n]
 * </pre>
 */
public final class HashCpuTime {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private HashCpuTime() {}

  /** Arguments: build or pick, the algorithm (default maglev), endpoints (default 100). */
  public static void main(String[] args) {
    boolean build = args.length == 0 || args[0].equals("build");
    String algorithm = args.length > 1 ? args[1] : "maglev";
    int n = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      endpoints.add(Endpoint.of(SubsetData.host(i), 8080, 1, Map.of()));
    }
    Balancer<Integer> b = Algorithm.fromName(algorithm).create(BalancerConfig.defaults());
    b.update(endpoints, endpoints::indexOf);
    double[] t = build ? builds(b, endpoints) : picks(b);
    Arrays.sort(t);
    System.out.printf("%s, %d endpoints: CPU time per %s, median %.3f %s, p10 %.3f%n", algorithm,
        n, build ? "build" : "pick", t[t.length / 2], build ? "ms" : "ns", t[t.length / 10]);
  }

  private static double[] builds(Balancer<Integer> b, List<Endpoint> endpoints) {
    for (int i = 0; i < 200; i++) {
      b.update(endpoints, e -> 0);
    }
    double[] ms = new double[300];
    for (int i = 0; i < ms.length; i++) {
      long start = THREADS.getCurrentThreadCpuTime();
      b.update(endpoints, e -> 0);
      ms[i] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
    }
    return ms;
  }

  private static double[] picks(Balancer<Integer> b) {
    HashBalancer<Integer> h = b instanceof HashBalancer ? (HashBalancer<Integer>) b : null;
    long[] hashes = new long[4096];
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = random.nextLong();
    }
    double[] ns = new double[40];
    long sink = 0;
    for (int r = 0; r < ns.length; r++) {
      long start = THREADS.getCurrentThreadCpuTime();
      for (int i = 0; i < 1_000_000; i++) {
        Node<Integer> node = h != null ? h.pick(hashes[i & 4095]) : b.pick();
        node.cancel();
        sink += node.value();
      }
      ns[r] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
    }
    if (sink == 42) {
      System.out.print("");
    }
    return Arrays.copyOfRange(ns, 10, ns.length);
  }
}

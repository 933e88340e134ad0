package dev.ballast.bench.hash;

import dev.ballast.bench.subset.SubsetData;
import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.KeyedDistributor;
import dev.ballast.core.engine.KeyedDistributorBalancer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The key-hashing balancers' costs at N endpoints (weights 1..10, seed 42): {@code pickHash},
 * one pick by a 64-bit hash and its release, over 4096 random hashes in turn (goal for Maglev
 * at N = 1000: at most 30 ns and 0 B); {@code pickKey}, the same by an ASCII key of about 18 characters,
 * hashed with the algorithm's own function; {@code build}, an update that rebuilds the ring or
 * table (Envoy reports 2.2 ms for a Maglev table of 65,537 entries over 100 hosts).
 *
 * <pre>./ballast bench HashBenchmark -prof gc -f 1 -wi 3 -w 1s -i 5 -r 1s</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HashBenchmark {

  /**
   * The algorithm, by {@link Algorithm#id()}; {@code round_robin}, whose picks take no hash (one
   * atomic increment), is the baseline of the same run; {@code keyed_modulo}, a team's rule
   * written as a {@link KeyedDistributor} (hash modulo N), measures the engine around one.
   */
  @Param({"round_robin", "ring_hash", "ketama", "maglev", "keyed_modulo"})
  public String algorithm;

  /** The number of endpoints. */
  @Param({"10", "100", "1000"})
  public int n;

  private Balancer<Integer> balancer;
  private HashBalancer<Integer> hashing;
  private List<Endpoint> endpoints;
  private final long[] hashes = new long[4096];
  private final String[] keys = new String[4096];
  private int next;

  /** Builds the balancer, the hashes and the keys. */
  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    endpoints = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      endpoints.add(Endpoint.of(SubsetData.host(i), 8080, 1 + random.nextInt(10), Map.of()));
    }
    balancer = algorithm.equals("keyed_modulo")
        ? new KeyedDistributorBalancer<>(algorithm, BalancerConfig.defaults(), MODULO)
        : Algorithm.fromName(algorithm).create(BalancerConfig.defaults(), HashConfig.defaults());
    balancer.update(endpoints, endpoints::indexOf);
    hashing = balancer instanceof HashBalancer ? (HashBalancer<Integer>) balancer : null;
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = random.nextLong();
      keys[i] = Long.toString(random.nextLong() >>> 1, 36) + "-user";
    }
  }

  private static final KeyedDistributor.Factory MODULO = new KeyedDistributor.Factory() {
    @Override
    public <T> KeyedDistributor<T> over(List<Node<T>> nodes, int[] weights, BalancerConfig c) {
      return (keyHash, attempt) ->
          nodes.get((int) Long.remainderUnsigned(keyHash + attempt, nodes.size()));
    }
  };

  /** One pick by hash and its release. */
  @Benchmark
  public Node<Integer> pickHash() {
    long hash = hashes[next++ & 4095];
    Node<Integer> node = hashing != null ? hashing.pick(hash) : balancer.pick();
    node.cancel();
    return node;
  }

  /** One pick by key (hashed here) and its release. */
  @Benchmark
  public Node<Integer> pickKey() {
    String key = keys[next++ & 4095];
    Node<Integer> node = hashing != null ? hashing.pick(key) : balancer.pick();
    node.cancel();
    return node;
  }

  /** One update with the same endpoints: the ring or table is built again. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public List<Node<Integer>> build() {
    return balancer.update(endpoints, e -> -1);
  }
}

package dev.ballast.bench.pick;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.locality.LocalityConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * The cost of {@code pick()} then {@code complete()} through priorities and localities, against
 * the child algorithm alone, at 1,000 endpoints in three zones (half of zone a unhealthy, so the
 * tables are not the trivial ones): {@code plain} is the algorithm over every endpoint, {@code
 * locality} is {@code LocalityBalancer} weighting the zones, {@code zone_aware} adds the caller's
 * zone and shares. Run with {@code -prof gc}: every mode should allocate 0 B per operation.
 *
 * <pre>./ballast bench LocalityPickBenchmark -prof gc -f 1 -wi 2 -w 1s -i 3 -r 1s</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LocalityPickBenchmark {

  /** The algorithm inside each locality, by {@link Algorithm#id()}. */
  @Param({"round_robin", "p2c_peak_ewma"})
  public String algorithm;

  /** {@code plain}, {@code locality} or {@code zone_aware}; see the class comment. */
  @Param({"plain", "locality", "zone_aware"})
  public String mode;

  private Balancer<Integer> balancer;

  /** Makes the balancer over the endpoints. */
  @Setup
  public void setUp() {
    Algorithm a = Algorithm.fromName(algorithm);
    BalancerConfig config = BalancerConfig.defaults();
    LocalityConfig zones = mode.equals("zone_aware") ? LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 5, "b", 3, "c", 2)).build() : LocalityConfig.defaults();
    balancer = mode.equals("plain") ? a.create(config)
        : LocalityBalancer.<Integer>builder().algorithm(a).config(config).locality(zones).build();
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      String zone = i < 300 ? "a" : i < 700 ? "b" : "c";
      String health = i < 150 ? ";health=unhealthy" : "";
      endpoints.add(Endpoint.parse("10.0." + (i >> 8) + "." + (i & 0xff) + ":80;zone=" + zone
          + health));
    }
    balancer.update(endpoints, e -> 0);
  }

  /** One request's balancer work. */
  @Benchmark
  public Node<Integer> pickAndComplete() {
    Node<Integer> n = balancer.pick();
    n.complete(1_000_000L, true);
    return n;
  }
}

package dev.ballast.bench.pick;

import dev.ballast.bench.subset.SubsetData;
import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one request's balancer work, {@code pick()} then {@code complete()}, for every
 * lb-core algorithm at N endpoints with weights drawn uniformly from 1..10 (seed 42), on one
 * thread and on two threads sharing the balancer. {@code swrr} (nginx's O(N) smooth weighted
 * round robin) is the baseline: VNSWRR must stay flat in N and be far cheaper at N = 2000
 * (Tengine measured 0.27% against 39% of CPU). Run with {@code -prof gc}: every algorithm should
 * allocate 0 B per operation.
 *
 * <p>Armeria's endpoint selection strategies run beside them over the same endpoints and
 * weights, through a {@code DynamicEndpointGroup}'s {@code selectNow} as an Armeria client asks
 * for an endpoint (Armeria counts nothing per request, so it has no completion):
 * {@code armeria_weighted_round_robin} and {@code armeria_ramping_up}, the latter with the last
 * tenth of the endpoints added after the others, ramping up over 10 steps of 60 s, so that they
 * stay in their ramp for the whole run. {@code -p ramp=on} runs lb-core's algorithms with slow
 * start while the same tenth ramps; a pick during a ramp should cost at most 1.5x one without.
 *
 * <p>{@code weighted_round_robin} and {@code p2c_utilization} take their weights from load
 * reports, fed once in the set-up: each node's server reports its endpoint's weight as its
 * capacity (blackout 0 s), so they weigh as the others do.
 *
 * <pre>./ballast bench PickBenchmark -prof gc -f 1 -wi 2 -w 1s -i 3 -r 1s</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PickBenchmark {

  /** The algorithm, by {@link Algorithm#id()}, or one of Armeria's strategies. */
  @Param({"round_robin", "weighted_random", "swrr", "vnswrr", "least_loaded", "p2c_peak_ewma",
      "weighted_round_robin", "p2c_utilization", "armeria_weighted_round_robin",
      "armeria_ramping_up"})
  public String algorithm;

  /** The number of endpoints. */
  @Param({"10", "100", "1000", "2000", "10000"})
  public int n;

  /**
   * {@code on}: slow start with a 10-minute window, so that the last tenth of the endpoints,
   * added by a second update, ramps for the whole run; {@code off}: the same two updates
   * without slow start.
   */
  @Param({"off"})
  public String ramp;

  /**
   * The ramp's floor in percent with {@code ramp=on} (default 10); below about 1% at 1,000
   * endpoints, round robin and VNSWRR give the ramping tenth a ring of its own.
   */
  @Param({"10"})
  public double floor = 10;

  private Balancer<Integer> balancer;
  private ArmeriaPeer armeria;

  /** Builds the balancer over N endpoints with seeded random weights 1..10. */
  @Setup(Level.Trial)
  public void setUp() {
    List<Endpoint> endpoints = endpoints(n);
    if (algorithm.startsWith("armeria_")) {
      armeria = new ArmeriaPeer(algorithm.equals("armeria_ramping_up"), endpoints);
      return;
    }
    // The default config: system ticker and a thread-local random source, as in production.
    BalancerConfig config = ramp.equals("on")
        ? BalancerConfig.builder().slowStart(Duration.ofMinutes(10), 1.0, floor).build()
        : BalancerConfig.defaults();
    Algorithm a = Algorithm.fromName(algorithm);
    balancer = a.readsReports() ? ReportedLoad.balancer(a, config) : a.create(config);
    int[] next = {0};
    balancer.update(endpoints.subList(0, n - Math.max(1, n / 10)), e -> next[0]++);
    balancer.update(endpoints, e -> next[0]++);
    if (a.readsReports()) {
      ReportedLoad.feed(balancer);
    }
  }

  /** Returns n endpoints with weights drawn uniformly from 1..10 (seed 42). */
  static List<Endpoint> endpoints(int n) {
    SplittableRandom random = new SplittableRandom(42);
    List<Endpoint> endpoints = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      endpoints.add(Endpoint.of(SubsetData.host(i), 8080, 1 + random.nextInt(10), Map.of()));
    }
    return endpoints;
  }

  /** One pick and its completion on one thread. */
  @Benchmark
  @Threads(1)
  public Object pickComplete1() {
    return pickComplete();
  }

  /** One pick and its completion, two threads sharing the balancer. */
  @Benchmark
  @Threads(2)
  public Object pickComplete2() {
    return pickComplete();
  }

  /** Closes Armeria's endpoint group (its ramp-up timers). */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (armeria != null) {
      armeria.close();
    }
  }

  /** The benchmark's operation, for harnesses that time it themselves. */
  public Object pickComplete() {
    if (armeria != null) {
      return armeria.select();
    }
    Node<Integer> node = balancer.pick();
    node.complete(1_000_000L, true);
    return node;
  }
}

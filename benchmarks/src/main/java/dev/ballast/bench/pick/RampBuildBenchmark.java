package dev.ballast.bench.pick;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.time.Duration;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a slow-start floor costs when a tenth of a fleet joins: 900 endpoints (weights 1..10, seed
 * 42), then 100 more that ramp from {@code floor} percent. {@code scaleOut} times the update that
 * brings them in (the snapshot's build, VNSWRR's ring allocated; {@code -prof gc} gives its
 * bytes); {@code scaleOutThenPicks} adds the next 10,000 picks and completions (10 s of a client
 * at 1,000 requests/s), during which a ring is filled as picks reach it. A finer floor means a
 * larger ring for round robin and VNSWRR while the joining endpoints sit at it (round robin:
 * {@code 900 × 100 / floor + 100} slots).
 *
 * <pre>./ballast bench RampBuildBenchmark -prof gc -f 1 -wi 2 -w 1s -i 3 -r 1s</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RampBuildBenchmark {

  /** The algorithm, by {@link Algorithm#id()}. */
  @Param({"round_robin", "vnswrr", "least_loaded", "p2c_peak_ewma"})
  public String algorithm;

  /** The ramp's floor in percent of the weight. */
  @Param({"10", "1", "0.1"})
  public double floor;

  private List<Endpoint> endpoints;
  private BalancerConfig config;

  /** Makes the 1,000 endpoints and the config: a 10-minute window, so nothing leaves the floor. */
  @Setup(Level.Trial)
  public void setUp() {
    endpoints = PickBenchmark.endpoints(1000);
    config = BalancerConfig.builder().slowStart(Duration.ofMinutes(10), 1.0, floor).build();
  }

  private Balancer<Integer> scaledOut() {
    Balancer<Integer> b = Algorithm.fromName(algorithm).create(config);
    int[] next = {0};
    b.update(endpoints.subList(0, 900), e -> next[0]++);
    b.update(endpoints, e -> next[0]++);
    return b;
  }

  /** The first update (900 endpoints) and the scale-out update (100 joining). */
  @Benchmark
  public Object scaleOut() {
    return scaledOut();
  }

  /** The same, then 10,000 picks and completions. */
  @Benchmark
  public Object scaleOutThenPicks() {
    Balancer<Integer> b = scaledOut();
    Node<Integer> last = null;
    for (int i = 0; i < 10_000; i++) {
      last = b.pick();
      last.complete(1_000_000L, true);
    }
    return last;
  }
}

package dev.ballast.bench.health;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.health.HealthChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * What the active-check engine costs per check and per idle tick, at thousands of endpoints: a
 * manual clock moves by {@code interval / endpoints} per operation, so that one check is due per
 * operation on average (the steady state of checks spread over the interval), and the probe
 * answers at once. {@code dueCheck} is the engine's work for one check (heap steps, verdict, the
 * result handle); {@code idleTick} a timer tick with nothing due. Run with {@code -prof gc} for
 * the bytes per check.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HealthCheckerBenchmark {

  @Param({"1000", "10000"})
  int endpoints;

  private long now;
  private long step;
  private HealthChecker<Integer> checker;

  @Setup
  public void setup() {
    Balancer<Integer> b = Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults());
    List<Endpoint> es = new ArrayList<>(endpoints);
    for (int i = 0; i < endpoints; i++) {
      es.add(Endpoint.of("10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255), 8080));
    }
    b.update(es, es::indexOf);
    Duration interval = Duration.ofSeconds(5);
    checker = new HealthChecker<>(HealthCheckConfig.builder().interval(interval)
        .initialJitter(interval).build(), (node, result) -> {
          result.report(Health.HEALTHY);
          return null;
        }, () -> now, new SplittableRandom(1));
    checker.update(b.nodes());
    step = interval.toNanos() / endpoints;
    for (int i = 0; i < 2 * endpoints; i++) { // two rounds: the spread settles
      now += step;
      checker.runDue();
    }
  }

  @Benchmark
  public long dueCheck() {
    now += step;
    return checker.runDue();
  }

  @Benchmark
  public long idleTick() {
    return checker.runDue();
  }
}

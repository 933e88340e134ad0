package dev.ballast.core;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/** Shared test fixtures: endpoints, seeded configs and a manual clock. */
public final class Fixtures {

  private Fixtures() {}

  /** Endpoints 10.0.i.j:8080 with the given weights, value = index. */
  public static List<Endpoint> endpoints(int... weights) {
    List<Endpoint> list = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      list.add(Endpoint.parse(host(i) + ":8080;weight=" + weights[i]));
    }
    return list;
  }

  public static String host(int i) {
    return "10.0." + (i / 250) + "." + (i % 250 + 1);
  }

  /** A config with a seeded random source and a clock that stands still: fully deterministic. */
  public static BalancerConfig seeded(long seed) {
    return BalancerConfig.builder()
        .random(new SplittableRandom(seed))
        .ticker(new ManualTicker())
        .build();
  }

  /**
   * A seeded config whose clock moves 1 ms at each reading: time passes as calls complete, so
   * that P2C peak EWMA's evidence ages as it would under real traffic.
   */
  public static BalancerConfig ticking(long seed) {
    ManualTicker ticker = new ManualTicker();
    return BalancerConfig.builder()
        .random(new SplittableRandom(seed))
        .ticker(() -> {
          ticker.advanceMillis(1);
          return ticker.nanoTime();
        })
        .build();
  }

  /** Creates the balancer and loads the weights; node values are their indices. */
  public static Balancer<Integer> balancer(Algorithm a, BalancerConfig config, int... weights) {
    Balancer<Integer> b = a.create(config);
    List<Endpoint> es = endpoints(weights);
    b.update(es, e -> es.indexOf(e));
    return b;
  }

  /** Picks and completes at once (success, 1 ms); returns the node's value. */
  public static int pickOnce(Balancer<Integer> b) {
    Node<Integer> n = b.pick();
    n.complete(1_000_000, true);
    return n.value();
  }

  public static int[] randomWeights(SplittableRandom r, int n, int max) {
    int[] w = new int[n];
    for (int i = 0; i < n; i++) {
      w[i] = 1 + r.nextInt(max);
    }
    return w;
  }

  public static int gcd(int a, int b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  /** A ticker the test moves by hand. */
  public static final class ManualTicker implements Ticker {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
      return now.get();
    }

    public void advanceMillis(long ms) {
      now.addAndGet(ms * 1_000_000L);
    }

    public void advanceNanos(long ns) {
      now.addAndGet(ns);
    }
  }
}

package dev.ballast.core.loadaware;

import static dev.ballast.core.Fixtures.endpoints;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Fixtures;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Issue 2, item 4: P2C least-loaded and P2C peak EWMA, driven by a manual clock. */
class P2cTest {

  private final ManualTicker ticker = new ManualTicker();

  private BalancerConfig config(long seed) {
    return BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(seed)).build();
  }

  @Test
  void leastLoadedTakesTheNodeWithFewerPending() {
    Balancer<Integer> b = Fixtures.balancer(Algorithm.LEAST_LOADED, config(1), 1, 1);
    Node<Integer> busy = b.nodes().get(0);
    for (int i = 0; i < 3; i++) {
      busy.start();
    }
    for (int i = 0; i < 100; i++) {
      Node<Integer> n = b.pick();
      assertThat(n.value()).isEqualTo(1);
      n.complete(1, true);
    }
    for (int i = 0; i < 3; i++) {
      busy.cancel();
    }
    // Holding picks makes load even out: never more than one apart.
    List<Node<Integer>> held = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      held.add(b.pick());
      assertThat(Math.abs(b.nodes().get(0).pending() - b.nodes().get(1).pending()))
          .isLessThanOrEqualTo(1);
    }
  }

  @Test
  void leastLoadedAvoidsALoadedNodeAmongMany() {
    Balancer<Integer> b = Fixtures.balancer(Algorithm.LEAST_LOADED, config(2),
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    Node<Integer> loaded = b.nodes().get(4);
    for (int i = 0; i < 5; i++) {
      loaded.start();
    }
    int hits = 0;
    for (int i = 0; i < 10_000; i++) {
      hits += Fixtures.pickOnce(b) == 4 ? 1 : 0;
    }
    assertThat(hits).isZero();
  }

  @Test
  void leastLoadedDividesLoadByWeight() {
    // Weight 3 with 2 pending (0.67/unit) beats weight 1 with 1 pending (1/unit).
    Balancer<Integer> b = Fixtures.balancer(Algorithm.LEAST_LOADED, config(3), 3, 1);
    b.nodes().get(0).start();
    b.nodes().get(0).start();
    b.nodes().get(1).start();
    assertThat(Fixtures.pickOnce(b)).isEqualTo(0);
  }

  /**
   * A small virtual-time loop: one pick per millisecond, each request completes after its node's
   * RTT. Returns how many picks each node got.
   */
  private int[] run(Balancer<Integer> b, long[] rttMillis, int picks) {
    int[] counts = new int[rttMillis.length];
    PriorityQueue<long[]> inFlight = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
    List<Node<Integer>> nodes = b.nodes();
    for (int i = 0; i < picks; i++) {
      ticker.advanceMillis(1);
      long now = ticker.nanoTime();
      while (!inFlight.isEmpty() && inFlight.peek()[0] <= now) {
        long[] done = inFlight.poll();
        nodes.get((int) done[1]).complete(done[2], true);
      }
      Node<Integer> n = b.pick();
      int v = n.value();
      counts[v]++;
      long rtt = rttMillis[v] * 1_000_000L;
      inFlight.add(new long[] {now + rtt, v, rtt});
    }
    // Drain so pending returns to zero.
    while (!inFlight.isEmpty()) {
      long[] done = inFlight.poll();
      nodes.get((int) done[1]).complete(done[2], true);
    }
    return counts;
  }

  @Test
  void peakEwmaMovesTrafficAwayFromASlowNodeAndBackSoonAfterItRecovers() {
    Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA, config(4),
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    long[] rtt = {10, 10, 10, 10, 10, 10, 10, 10, 10, 10};
    int[] warm = run(b, rtt, 5_000);
    assertThat(warm[0]).isBetween(300, 700); // about a tenth

    rtt[0] = 100; // 10x slower
    int[] slow = run(b, rtt, 5_000);
    assertThat(slow[0]).as("slow node's picks out of 5000").isLessThan(25);
    double slowEstimate = b.nodes().get(0).rttEstimateNanos();
    assertThat(slowEstimate).isGreaterThan(50e6);

    // Recovered: the decay alone would keep it out for 15 s (100 ms * e^-1.5 = 22 ms > 10 ms);
    // a probe of its stale estimate finds it fast again.
    rtt[0] = 10;
    int[] back = run(b, rtt, 2_000);
    assertThat(back[0]).as("picks in the 2 s after recovery (fair: 200)").isGreaterThan(100);
    assertThat(b.nodes().get(0).rttEstimateNanos()).isLessThan(20e6);
    for (Node<Integer> n : b.nodes()) {
      assertThat(n.pending()).isZero();
    }
  }

  @Test
  void peakEwmaJumpsToAPeakAndDecaysOnRead() {
    Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA, config(5), 1, 1);
    Node<Integer> n = b.nodes().get(0);
    assertThat(n.rttEstimateNanos()).isEqualTo(30e6); // default RTT
    n.start();
    n.complete(200_000_000L, true);
    assertThat(n.rttEstimateNanos()).isEqualTo(200e6); // the peak, at once
    ticker.advanceMillis(50);
    double w = Math.exp(-0.005); // 50 ms of a 10 s tau
    assertThat(n.rttEstimateNanos()).isCloseTo(200e6 * w, org.assertj.core.data.Offset.offset(1.0));
    n.start();
    n.complete(10_000_000L, true); // below the estimate: est*w + rtt*(1-w), w at most 15/16
    double blended = 200e6 * (15 / 16.0) + 10e6 / 16;
    assertThat(n.rttEstimateNanos()).isCloseTo(blended, org.assertj.core.data.Offset.offset(1.0));
    ticker.advanceMillis(10_000); // one tau
    assertThat(n.rttEstimateNanos()).isCloseTo(blended / Math.E,
        org.assertj.core.data.Offset.offset(1.0));
    n.start();
    n.complete(10_000_000L, true); // the estimate was stale (over 100 ms old): replaced
    assertThat(n.rttEstimateNanos()).isEqualTo(10e6);
  }

  /**
   * A completion records its estimate before it releases the pending slot, so whoever sees the
   * pending count drop (stats, a test awaiting it) also sees the new estimate. The clock, read
   * while the sample is recorded, checks the order.
   */
  @Test
  void aCompletionIsInTheEstimateBeforeThePendingCountDrops() {
    List<Node<Integer>> nodes = new ArrayList<>();
    List<Integer> pendingAtRecord = new ArrayList<>();
    Ticker watching = () -> {
      if (!nodes.isEmpty()) {
        pendingAtRecord.add(nodes.get(0).pending());
      }
      return ticker.nanoTime();
    };
    Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA,
        config(8).toBuilder().ticker(watching).build(), 1);
    Node<Integer> n = b.pick();
    nodes.add(n);
    n.complete(2_000_000_000L, false);
    assertThat(pendingAtRecord).isNotEmpty().allMatch(p -> p == 1);
    assertThat(n.pending()).isZero();
    assertThat(n.rttEstimateNanos()).isEqualTo(2e9);
    pendingAtRecord.clear();
    n = b.pick();
    n.completeSince(ticker.nanoTime() - 5_000_000_000L, true);
    assertThat(pendingAtRecord).isNotEmpty().allMatch(p -> p == 1);
    assertThat(n.pending()).isZero();
  }

  @Test
  void aBrandNewNodeIsNotFlooded() {
    Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA, config(6),
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    long[] rtt = new long[11];
    java.util.Arrays.fill(rtt, 50); // the fleet answers in 50 ms, above the 30 ms default
    run(b, java.util.Arrays.copyOf(rtt, 10), 5_000);
    List<Endpoint> es = new ArrayList<>(endpoints(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1));
    b.update(es, e -> 10);
    int[] counts = run(b, rtt, 1_000);
    double fair = 1_000 / 11.0;
    assertThat(counts[10]).isGreaterThan(0).isLessThan((int) (3 * fair));
  }

  @Test
  void peakEwmaDividesCostByWeight() {
    Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA,
        config(7).toBuilder().defaultRtt(Duration.ofMillis(10)).build(), 4, 1);
    // Same estimate, same pending: the weight-4 node costs a quarter.
    assertThat(Fixtures.pickOnce(b)).isEqualTo(0);
    // Four times the latency at weight 4 ties weight 1; five times loses.
    Node<Integer> heavy = b.nodes().get(0);
    heavy.start();
    heavy.complete(50_000_000L, true);
    assertThat(Fixtures.pickOnce(b)).isEqualTo(1);
  }
}

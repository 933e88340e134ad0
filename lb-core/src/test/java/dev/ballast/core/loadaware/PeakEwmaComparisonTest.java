package dev.ballast.core.loadaware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Node;
import dev.ballast.core.loadaware.P2cPeakEwma.EwmaNode;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * P2C peak EWMA compares two candidates without reading the clock (the decay factor common to
 * both cancels). This checks that the shortcut orders every pair exactly as the decayed costs
 * at "now" do, including Finagle's penalty for a node with no estimate and pending requests.
 */
class PeakEwmaComparisonTest {

  @Test
  void clockFreeComparisonAgreesWithDecayedCosts() {
    ManualTicker ticker = new ManualTicker();
    P2cPeakEwma<Integer> balancer = new P2cPeakEwma<>(
        BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(1)).build());
    SplittableRandom r = new SplittableRandom(99);
    long tau = BalancerConfig.defaults().decayTime().toNanos();
    int agreed = 0;
    for (int round = 0; round < 20_000; round++) {
      @SuppressWarnings("unchecked")
      Node<Integer>[] nodes = new Node[2];
      int[] weights = new int[2];
      long now = ticker.nanoTime() + r.nextLong(1L << 40);
      for (int i = 0; i < 2; i++) {
        weights[i] = 1 + r.nextInt(10);
        nodes[i] = balancer.newNode(Endpoint.of("h" + i, 80, weights[i], java.util.Map.of()), i);
        double estimate = r.nextInt(10) == 0 ? 0 : r.nextDouble() * 1e9;
        // Stamps far apart (Math.exp) and, every other round, within 10 ms (the polynomial).
        double spread = round % 2 == 0 ? 5 : 0.001;
        long stamp = now - (long) (r.nextDouble() * spread * tau);
        ((EwmaNode<Integer>) nodes[i]).initRtt(estimate, stamp);
        int pending = r.nextInt(5);
        for (int p = 0; p < pending; p++) {
          nodes[i].start();
        }
      }
      P2cSnapshot<Integer> snapshot = (P2cSnapshot<Integer>) balancer.snapshot(nodes, weights, null);
      PeakEwma metric = ((EwmaNode<Integer>) nodes[0]).ewma;
      double costA = metric.cost((EwmaNode<Integer>) nodes[0], weights[0], now);
      double costB = metric.cost((EwmaNode<Integer>) nodes[1], weights[1], now);
      if (Math.abs(costA - costB) <= 1e-9 * Math.max(costA, costB)) {
        continue; // a tie within rounding may go either way
      }
      advanceTo(ticker, now);
      assertThat(snapshot.cheaper(1, 0)).as("round %d: %s vs %s", round, costB, costA)
          .isEqualTo(costB < costA);
      agreed++;
    }
    assertThat(agreed).isGreaterThan(19_000);
  }

  @Test
  void theShortExpIsWithin2ToTheMinus44OfMathExp() {
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < 100_000; i++) {
      double x = (r.nextDouble() * 2 - 1) * 0x1p-10;
      double exact = Math.exp(x);
      assertThat(Math.abs(PeakEwma.exp(x) - exact)).as("x = %s", x)
          .isLessThanOrEqualTo(exact * 0x1p-44);
    }
    assertThat(PeakEwma.exp(0.5)).isEqualTo(Math.exp(0.5));
    assertThat(PeakEwma.exp(0)).isEqualTo(1.0);
  }

  private static void advanceTo(ManualTicker ticker, long now) {
    long delta = now - ticker.nanoTime();
    ticker.advanceMillis(0);
    if (delta > 0) {
      ticker.advanceNanos(delta);
    }
  }
}

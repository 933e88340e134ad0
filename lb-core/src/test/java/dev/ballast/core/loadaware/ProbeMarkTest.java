package dev.ballast.core.loadaware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Fixtures;
import dev.ballast.core.Node;
import dev.ballast.core.loadaware.P2cPeakEwma.EwmaNode;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Peak EWMA's probe mark ends with the probe: a probe cancelled before it was sent, or one
 * chosen by an uncounted pick and dropped (a gRPC pick whose stream never starts), leaves no
 * mark that would later take an ordinary answer for a probe's. Virtual time, seeded.
 */
class ProbeMarkTest {

  private static final long MS = 1_000_000L;

  private final ManualTicker ticker = new ManualTicker();
  private final Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA,
      BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(5)).build(), 1, 1);

  /** Node 0 answers once in 400 ms, then node 1 in 0.5 ms until node 0 is probed. */
  private Node<Integer> probeOfTheSlowNode(boolean counted) {
    Node<Integer> slow = b.nodes().get(0);
    slow.start();
    slow.complete(400 * MS, true);
    for (int i = 0; i < 10_000; i++) {
      Node<Integer> n = counted ? b.pick() : b.pickUncounted();
      if (n == slow) {
        return n;
      }
      if (!counted) {
        n.start();
      }
      ticker.advanceNanos(MS / 2);
      n.complete(MS / 2, true);
    }
    throw new AssertionError("node 0 was never probed");
  }

  @Test
  void aCancelledProbeLeavesNoMark() {
    Node<Integer> slow = probeOfTheSlowNode(true);
    assertThat(((EwmaNode<Integer>) slow).probed()).isTrue();
    slow.cancel();
    assertThat(((EwmaNode<Integer>) slow).probed()).isFalse();
    assertThat(slow.pending()).isZero();
  }

  @Test
  void aDroppedUncountedProbeMarksAtMostTheNextAnswer() {
    Node<Integer> slow = probeOfTheSlowNode(false);
    assertThat(((EwmaNode<Integer>) slow).probed()).isTrue();
    // the pick is dropped: never started, never ended; two requests then run at once
    slow.start();
    slow.start();
    slow.complete(MS / 2, true);
    assertThat(((EwmaNode<Integer>) slow).probed()).as("the mark ends with the next answer").isFalse();
    slow.complete(MS / 2, true);
    assertThat(slow.pending()).isZero();
  }
}

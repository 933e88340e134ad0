package dev.ballast.core.loadaware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Fixtures;
import dev.ballast.core.VirtualCallers;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * P2C peak EWMA over identical sub-millisecond servers on a loaded host, in virtual time: calls
 * take 0.15 to 0.3 ms, and one call meets a hiccup of the host (a thread descheduled, a
 * collector's pause) of a few milliseconds. Three real loopback servers showed such hiccups on
 * every node every few dozen calls at load 5 to 12 on 2 cores; a node that one hiccup starves
 * must be back within a few dozen of the fleet's calls, not after a fixed 100 ms, hundreds of
 * them.
 */
class PeakEwmaLoadedHostTest {

  private static final long MS = 1_000_000L;

  /**
   * One caller over {@code nodes} nodes; node 0's 500th call takes {@code hiccup} more. Returns
   * the picks of each node in the {@code window} after that call ended.
   */
  private static int[] afterAHiccup(int nodes, long hiccup, long window, long seed) {
    ManualTicker ticker = new ManualTicker();
    int[] weights = new int[nodes];
    Arrays.fill(weights, 1);
    Balancer<Integer> b = Fixtures.balancer(Algorithm.P2C_PEAK_EWMA,
        BalancerConfig.builder().ticker(ticker).random(new SplittableRandom(seed)).build(),
        weights);
    int[] calls = new int[nodes];
    long[] hiccupEnd = {-1};
    VirtualCallers v = new VirtualCallers(b, ticker, (node, now, call, noise) -> {
      long l = 150_000 + noise.nextLong(150_001);
      if (node == 0 && ++calls[0] == 500) {
        l += hiccup;
        hiccupEnd[0] = now + l;
      }
      return l;
    }, seed).start(1);
    long t = ticker.nanoTime();
    while (hiccupEnd[0] < 0 || ticker.nanoTime() < hiccupEnd[0]) {
      t += MS;
      v.runUntil(t, t);
    }
    long end = ticker.nanoTime();
    return v.runUntil(end, end + window);
  }

  @Test
  void aNodeOneHiccupStarvesHasHalfItsShareInThe50MsAfter() {
    // Before: none of the ~220 calls of those 50 ms (it waited 100 ms to be probed); now it is
    // probed once its evidence is 16 of the other node's estimates old.
    for (int nodes : new int[] {2, 3, 5}) {
      for (long hiccup : new long[] {2 * MS, 5 * MS, 30 * MS}) {
        for (long seed = 0; seed < 5; seed++) {
          int[] counts = afterAHiccup(nodes, hiccup, 50 * MS, seed);
          double fair = Arrays.stream(counts).sum() / (double) nodes;
          assertThat((double) counts[0]).as("%d nodes, hiccup %d ms, seed %d: %s", nodes,
              hiccup / MS, seed, Arrays.toString(counts)).isGreaterThanOrEqualTo(0.5 * fair);
        }
      }
    }
  }
}

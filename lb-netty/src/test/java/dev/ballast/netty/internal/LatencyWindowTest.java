package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hedging delay's percentile: buckets, the 100-latency minimum, the turning halves. */
class LatencyWindowTest {

  private static final long MS = 1_000_000;

  @Test
  void everyValueFallsInABucketWhoseTopIsWithinOneThirtySecond() {
    SplittableRandom random = new SplittableRandom(1);
    List<String> wrong = new ArrayList<>();
    for (int i = 0; i < 100_000 && wrong.size() < 10; i++) {
      long v = random.nextLong(1L << random.nextInt(1, 37));
      int b = LatencyWindow.index(v);
      long top = b < 0 || b >= LatencyWindow.BUCKETS ? -1 : LatencyWindow.upperMicros(b);
      boolean lowest = b == 0 || (b > 0 && LatencyWindow.upperMicros(b - 1) < v);
      if (top < v || top - v > v / 32 || !lowest) {
        wrong.add(v + " -> bucket " + b + ", top " + top);
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(LatencyWindow.index(Long.MAX_VALUE)).isEqualTo(LatencyWindow.BUCKETS - 1);
  }

  @Test
  void percentileOfTheLastOneToTwoHalves() {
    LatencyWindow w = new LatencyWindow(0.9, 10_000 * MS, 0);
    for (int i = 1; i <= 99; i++) {
      w.record(i * MS);
    }
    w.update(1);
    assertThat(w.percentileNanos()).as("fewer than 100 latencies").isEqualTo(-1);
    w.record(100 * MS);
    w.update(2);
    // 90th of 1..100 ms is 90 ms; its bucket (88.0-90.1 ms) reports its top
    assertThat(w.percentileNanos()).isEqualTo(LatencyWindow.upperMicros(
        LatencyWindow.index(90_000)) * 1000).isBetween(90 * MS, 90 * MS * 33 / 32);
    // A new half begins: the old latencies still count, with the new ones.
    w.update(10_000 * MS);
    for (int i = 0; i < 100; i++) {
      w.record(1000 * MS);
    }
    w.update(10_001 * MS);
    assertThat(w.percentileNanos()).isGreaterThanOrEqualTo(1000 * MS);
    // Two halves later the first latencies are gone.
    w.update(20_000 * MS);
    w.update(30_000 * MS);
    assertThat(w.percentileNanos()).isEqualTo(-1);
  }
}

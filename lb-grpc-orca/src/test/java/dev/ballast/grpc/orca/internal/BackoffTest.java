package dev.ballast.grpc.orca.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** gRPC's connection backoff: 1 s, times 1.6 each time, at most 120 s, each within ±20%. */
class BackoffTest {

  private static final long S = 1_000_000_000L;

  @Test
  void waitsGrowBy1point6UpTo120SecondsWithinTwentyPercentAndStartOverOnReset() {
    for (long seed = 1; seed <= 100; seed++) {
      Backoff b = new Backoff(new SplittableRandom(seed));
      double base = S;
      for (int i = 0; i < 20; i++) {
        long wait = b.nextNanos();
        assertThat(wait).as("seed %d, wait %d", seed, i)
            .isBetween((long) (0.8 * base), (long) (1.2 * base));
        base = Math.min(base * 1.6, 120.0 * S);
      }
      b.reset();
      assertThat(b.nextNanos()).isBetween(8 * S / 10, 12 * S / 10);
    }
  }
}

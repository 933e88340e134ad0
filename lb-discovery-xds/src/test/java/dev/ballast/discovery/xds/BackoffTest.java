package dev.ballast.discovery.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void exponentialDoublesUpToItsCapWithinTwentyPercent() {
    XdsSource.Backoff b = XdsSource.Backoff.exponential(Duration.ofSeconds(1),
        Duration.ofSeconds(30));
    long[] base = {1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000};
    for (int n = 1; n <= base.length; n++) {
      for (int draw = 0; draw < 50; draw++) {
        long ms = b.delay(n).toMillis();
        assertThat(ms).as("attempt " + n).isBetween(base[n - 1] * 8 / 10, base[n - 1] * 12 / 10);
      }
    }
    assertThat(b.delay(Integer.MAX_VALUE).toMillis()).isBetween(24_000L, 36_000L);
  }

  @Test
  void badBoundsAreRefused() {
    assertThatThrownBy(() -> XdsSource.Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessage("backoff: PT0S to PT1S (expected: 0 < initial <= max)");
    assertThatThrownBy(() -> XdsSource.Backoff.exponential(Duration.ofSeconds(2),
        Duration.ofSeconds(1))).hasMessage("backoff: PT2S to PT1S (expected: 0 < initial <= max)");
  }
}

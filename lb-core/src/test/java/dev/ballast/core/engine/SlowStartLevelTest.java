package dev.ballast.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Slow start's level over time: Envoy's formula in tenths, its floor held in millionths. */
class SlowStartLevelTest {

  private static final Duration WINDOW = Duration.ofSeconds(100);

  private static BalancerConfig config(Duration window, double aggression, double floor) {
    return BalancerConfig.builder().random(new SplittableRandom(3))
        .slowStart(window, aggression, floor).build();
  }

  @Test
  void rampIsEnvoysFormulaInTenthsWithItsFloor() {
    SlowStart linear = SlowStart.of(config(WINDOW, 1.0, 10));
    long joined = 5_000_000_000L;
    long s = 1_000_000_000L;
    assertThat(linear.level(joined, joined)).isEqualTo(pct(10)); // the floor
    assertThat(linear.level(joined, joined + 19 * s)).isEqualTo(pct(10));
    assertThat(linear.level(joined, joined + 20 * s)).isEqualTo(pct(20));
    assertThat(linear.level(joined, joined + 55 * s)).isEqualTo(pct(50)); // rounded down
    assertThat(linear.level(joined, joined + 100 * s)).isEqualTo(pct(100));
    assertThat(linear.level(SlowStart.NOT_RAMPING, joined)).isEqualTo(pct(100));
    assertThat(linear.nextStep(joined, pct(10))).isEqualTo(joined + 20 * s);
    assertThat(linear.nextStep(joined, pct(50))).isEqualTo(joined + 60 * s);
    assertThat(linear.nextStep(joined, pct(90))).isEqualTo(joined + 100 * s);

    // aggression 2: (t/window)^(1/2), fast at first; 0.5: (t/window)^2, slow at first.
    SlowStart fast = SlowStart.of(config(WINDOW, 2.0, 10));
    assertThat(fast.level(joined, joined + 25 * s)).isEqualTo(pct(50));
    assertThat(fast.nextStep(joined, pct(50))).isEqualTo(joined + 36 * s);
    SlowStart slow = SlowStart.of(config(WINDOW, 0.5, 5));
    // 0.04: below the first tenth
    assertThat(slow.level(joined, joined + 20 * s)).isEqualTo(pct(5));
    assertThat(slow.level(joined, joined + 50 * s)).isEqualTo(pct(20)); // 0.25
    assertThat(slow.nextStep(joined, pct(5)))
        .isEqualTo(joined + (long) Math.ceil(100e9 * Math.sqrt(0.1)));
  }

  @Test
  void aFractionalFloorIsHeldInMillionths() {
    long joined = 5_000_000_000L;
    long s = 1_000_000_000L;
    SlowStart tenthOfAPercent = SlowStart.of(config(WINDOW, 1.0, 0.1));
    assertThat(tenthOfAPercent.level(joined, joined)).isEqualTo(1000); // a thousandth
    assertThat(tenthOfAPercent.nextStep(joined, 1000)).isEqualTo(joined + 10 * s);
    assertThat(tenthOfAPercent.level(joined, joined + 10 * s)).isEqualTo(pct(10));
    assertThat(SlowStart.of(config(WINDOW, 1.0, 0.0125)).level(joined, joined)).isEqualTo(125);
    // below a millionth: a millionth
    assertThat(SlowStart.of(config(WINDOW, 1.0, 1e-9)).level(joined, joined)).isEqualTo(1);
  }

  /** Returns a percent as a level (millionths of the weight). */
  private static int pct(double percent) {
    return (int) Math.round(percent * SlowStart.FULL / 100);
  }
}

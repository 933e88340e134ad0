package dev.ballast.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostLoadTest {

  @Test
  void warnsOnlyWhenTheOneMinuteAverageIsAboveTheCores() {
    assertThat(HostLoad.describe("start", new double[] {0.71, 0.52, 0.4}, 2))
        .isEqualTo("start: load average 0.71 0.52 0.40 (2 cores)");
    assertThat(HostLoad.describe("start", new double[] {2.0, 9, 9}, 2)).doesNotContain("warning");
    assertThat(HostLoad.describe("end", new double[] {7.12, 3, 1}, 2))
        .startsWith("end: load average 7.12 3.00 1.00 (2 cores)" + System.lineSeparator()
            + "warning: the host is saturated (load average 7.12 above its 2 cores)");
  }
}

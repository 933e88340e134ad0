package dev.ballast.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The per-endpoint pick count's switch, {@value PolicyMetrics#ENDPOINT_PICKS_PROPERTY}. */
class PolicyMetricsTest {

  @Test
  void unsetOrBlankIsOff() {
    assertThat(PolicyMetrics.endpointPicks(null)).isFalse();
    assertThat(PolicyMetrics.endpointPicks("")).isFalse();
    assertThat(PolicyMetrics.endpointPicks(" \t")).isFalse();
  }

  @Test
  void trueOrFalseInAnyCaseAroundBlanks() {
    assertThat(PolicyMetrics.endpointPicks("true")).isTrue();
    assertThat(PolicyMetrics.endpointPicks(" TRUE ")).isTrue();
    assertThat(PolicyMetrics.endpointPicks("False")).isFalse();
  }

  @Test
  void anythingElseIsRejectedNamingTheProperty() {
    for (String bad : new String[] {"1", "yes", "on", "tru"}) {
      assertThatThrownBy(() -> PolicyMetrics.endpointPicks(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("ballast.grpc.metrics.endpointPicks: '" + bad
              + "' (expected: true or false)");
    }
  }
}

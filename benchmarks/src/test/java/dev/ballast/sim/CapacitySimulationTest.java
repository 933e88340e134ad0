package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The capacity scenario: servers of 1 : 1 : 2 : 4 cores reporting their load. */
class CapacitySimulationTest {

  private static double ratio(Algorithm a) {
    CapacitySimulation.Outcome o = CapacitySimulation.run(a, 1);
    return o.max() / o.mean();
  }

  @Test
  void reportedWeightsEvenUtilizationOutWhereRoundRobinOverloadsTheSmallServers() {
    assertThat(ratio(Algorithm.WEIGHTED_ROUND_ROBIN)).isLessThanOrEqualTo(1.05);
    assertThat(ratio(Algorithm.P2C_UTILIZATION)).isLessThanOrEqualTo(1.05);
    assertThat(ratio(Algorithm.ROUND_ROBIN)).isGreaterThan(1.4);
    assertThat(ratio(Algorithm.P2C_PEAK_EWMA)).isGreaterThan(1.2);
  }

  @Test
  void theSameSeedGivesTheSameTable() throws Exception {
    assertThat(CapacitySimulation.report(7)).isEqualTo(CapacitySimulation.report(7));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = Simulate.run(new String[] {"--scenario", "capacity", "--seed", "7"},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertThat(status).isZero();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(CapacitySimulation.report(7))
        .contains("weighted_round_robin", "p2c_utilization", "round_robin", "p2c_peak_ewma",
            "least_loaded");
  }

  @Test
  void anUnknownFlagIsNamed() {
    assertThatThrownBy(() -> Simulate.run(new String[] {"--scenario", "capacity", "--rate", "9"},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("flag: --rate (expected for the capacity scenario: --seed)");
  }
}

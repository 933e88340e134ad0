package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The {@code zones} scenario: zone-aware routing crosses zones far less than uniform balancing,
 * as Envoy's algorithm computes it, with every server within 1.1x the mean load.
 */
class ZoneSimulationTest {

  @Test
  void zoneAwareRoutingCrossesZonesOnlyForWhatTheCallersZoneCannotTake() {
    ZoneSimulation.Report r = ZoneSimulation.run(1, 2000);
    // servers 6/10/8 of 24, callers 30/18/12 of 60: uniform sends each caller's calls to other
    // zones in proportion to their servers: 0.5 x 18/24 + 0.3 x 14/24 + 0.2 x 16/24 = 68.3%
    assertThat(r.uniform().crossZone()).isCloseTo(0.6833, within(0.005));
    // zone-aware: zone a's callers (50%) keep 25/50 of their calls local, b's and c's keep all:
    // only 0.5 x 0.5 = 25% cross
    assertThat(r.zoneAware().crossZone()).isCloseTo(0.25, within(0.005));
    assertThat(r.uniform().maxLoad()).isLessThan(1.1);
    assertThat(r.zoneAware().maxLoad()).isLessThan(1.1);
    assertThat(r.zoneAware().minLoad()).isGreaterThan(0.9);
  }

  @Test
  void theCommandLinePrintsBothWays() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = Simulate.run(new String[] {"--scenario", "zones", "--seed", "3"},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(status).isZero();
    assertThat(out).startsWith("scenario zones: zones a, b, c with 6, 10, 8 servers")
        .contains("seed 3").contains("uniform (round_robin):").contains("zone-aware (locality):");
  }
}

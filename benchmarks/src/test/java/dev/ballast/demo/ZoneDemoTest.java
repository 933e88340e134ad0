package dev.ballast.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code ./ballast demo --zones} end to end on real servers: round robin over servers 2/4/3 in
 * zones a/b/c from callers 50/30/20% crosses zones for 0.5 x 7/9 + 0.3 x 5/9 + 0.2 x 6/9 = 68.9%
 * of the calls; zone-aware routing only for zone a's part beyond its servers' share: 0.5 x (1 -
 * 2/9 / 0.5) = 27.8% (round robin inside zones, random only in the spill).
 */
class ZoneDemoTest {

  @Test
  void zoneAwareRoutingCrossesZonesForAboutAThirdOfWhatUniformDoes() throws Exception {
    assertThat(Demo.DemoConfig.parse(new String[] {"--zones"}).zones).isTrue();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ZoneDemo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("uniform (round_robin):   cross-zone  68.9% of calls")
        .containsPattern("zone-aware \\(locality\\):   cross-zone  2[6-9]\\.\\d% of calls")
        .contains("client in a, zone a unhealthy:   0.0% of its calls stay in a")
        .containsPattern("client in a, zone a healthy  :  4[0-8]\\.\\d% of its calls stay in a");
  }
}

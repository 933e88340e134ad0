package dev.ballast.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code ./ballast demo --capacity}: its flags, and one short policy end to end. */
class CapacityDemoTest {

  @Test
  void capacityKeepsItsOwnDefaultsUnlessFlagsAreGiven() {
    Demo.DemoConfig c = Demo.DemoConfig.parse(new String[] {"--capacity"});
    assertThat(c.capacity).isTrue();
    CapacityDemo d = new CapacityDemo(c);
    assertThat(d.policies).containsExactly(Algorithm.ROUND_ROBIN, Algorithm.LEAST_LOADED,
        Algorithm.P2C_PEAK_EWMA, Algorithm.WEIGHTED_ROUND_ROBIN, Algorithm.P2C_UTILIZATION);
    assertThat(d.warmUpNanos).isEqualTo(4_000_000_000L);
    assertThat(d.measureNanos).isEqualTo(5_000_000_000L);
    assertThat(d.describe()).isEqualTo("servers of 1:1:2:4 cores on 127.0.0.1 reporting their"
        + " load, 4 ms a request, 1300 calls/s (65% of capacity); 4s warm-up and 5s measured per"
        + " policy; round_robin, least_loaded, p2c_peak_ewma, weighted_round_robin,"
        + " p2c_utilization; about 50s");
    CapacityDemo given = new CapacityDemo(Demo.DemoConfig.parse(new String[] {"--capacity",
        "--balancers", "round_robin,weighted_round_robin", "--warmup", "1s", "--duration=2s"}));
    assertThat(given.policies).containsExactly(Algorithm.ROUND_ROBIN,
        Algorithm.WEIGHTED_ROUND_ROBIN);
    assertThat(given.warmUpNanos).isEqualTo(1_000_000_000L);
    assertThat(given.measureNanos).isEqualTo(2_000_000_000L);
    assertThat(Demo.DemoConfig.parse(new String[0]).capacity).isFalse();
    assertThatThrownBy(() -> Demo.DemoConfig.parse(new String[] {"--capacity", "--zones"}))
        .hasMessage("--capacity: with --zones (expected: one of them)");
    assertThatThrownBy(() -> Demo.DemoConfig.parse(new String[] {"--capacity", "--balancers",
        "fastest"})).hasMessageContaining("fastest");
  }

  /** About 2 s: the framed servers' reports reach the client; the table has its row. */
  @Test
  void onePolicyRunsOnRealServersThatReport() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new CapacityDemo(Demo.DemoConfig.parse(new String[] {"--capacity", "--balancers",
        "p2c_utilization", "--warmup", "0s", "--duration", "1s"}))
        .run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("lb-netty framed protocol (LOAD_REPORT frames)")
        .containsPattern("p2c_utilization +(\\d\\.\\d\\d ){4} +\\d+\\.\\d\\d +[\\d.]+ +[\\d.]+ ")
        .contains("max/mean: the busiest server's utilization over the mean");
  }
}

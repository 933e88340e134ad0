package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateTest {

  @TempDir Path dir;

  @Test
  void disruptionScenarioMeasuresKeysMovedWhenABackendLeaves() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = Simulate.run(new String[] {"--scenario", "disruption", "--backends", "20",
        "--keys", "20000", "--seed", "3"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertThat(status).isZero();
    assertThat(out).startsWith("scenario disruption: 20 backends of weight 1, 20000 keys")
        .contains("ring_hash", "ketama", "maglev", "hash mod N", " 5.00%");
    assertThatThrownBy(() -> Simulate.run(new String[] {"--scenario", "disruption", "--rate",
        "5"}, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .hasMessage("flag: --rate (expected for the disruption scenario: --backends, --keys,"
            + " --seed)");
  }

  @Test
  void commandLineWritesTableJsonAndChart() throws IOException {
    Path json = dir.resolve("out.json");
    Path chart = dir.resolve("chart.svg");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = Simulate.run(new String[] {"--scenario", "custom", "--latency", "constant:20ms",
        "--backends", "3", "--rate", "100", "--duration", "2s", "--timeout", "500ms",
        "--balancers", "round_robin,p2c-peak-ewma", "--json", json.toString(), "--chart=" + chart},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(status).isZero();
    assertThat(out).contains("round_robin", "p2c_peak_ewma", "100.00%", "chart: " + chart);
    String j = Files.readString(json);
    assertThat(j).contains("\"scenario\": \"custom: 3 backends constant(20ms)",
        "{\"balancer\": \"round_robin\", \"requests\": 200, \"successes\": 200, \"attempts\": 200,"
            + " \"success_rate\": 1.000000, \"p50_ms\": 20.000, \"p90_ms\": 20.000,"
            + " \"p99_ms\": 20.000, \"p999_ms\": 20.000, \"p9999_ms\": 20.000, \"max_ms\": 20.000}",
        "\"balancer\": \"p2c_peak_ewma\"");
    String svg = Files.readString(chart);
    assertThat(svg).startsWith("<svg").endsWith("</svg>\n");
    assertThat(svg.split("<polyline", -1)).hasSize(3);
  }

  @Test
  void flagsAreAppliedInOrderAndFilesAddFlags() throws IOException {
    Path file = dir.resolve("scenario.txt");
    Files.writeString(file, "# a scenario file\n--backends 4\n--slow 2:1s:2s:normal:300ms,10ms --rate 50\n");
    Simulate.Options o = Simulate.parse(new String[] {"--file", file.toString(), "--deadline", "enforce",
        "--arrivals", "poisson", "--retries", "1", "--seed", "9"});
    Scenario s = o.scenario.build();
    assertThat(s.name()).isEqualTo("linkerd");
    assertThat(s.backends()).hasSize(4);
    assertThat(s.backends().get(3).toString()).isEqualTo("normal(167ms,5ms)");
    assertThat(s.slowWindows()).singleElement().hasToString("backend 2 normal(300ms,10ms) from 1s to 2s");
    assertThat(s.ratePerSecond()).isEqualTo(50);
    assertThat(s.enforceTimeout()).isTrue();
    assertThat(s.poisson()).isTrue();
    assertThat(s.tryTimeoutNanos()).isEqualTo(500_000_000L);
    assertThat(s.seed()).isEqualTo(9);
    assertThat(o.chart).isEqualTo(java.nio.file.Path.of("target", "ballast-sim-linkerd.svg"));
    assertThat(o.balancers).isEqualTo(Simulate.DEFAULT_BALANCERS);
  }

  @Test
  void badFlagsSayWhatWasExpected() throws IOException {
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--rate", "fast"}))
        .hasMessage("--rate: fast (expected: a number)");
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--balancers", "magic"}))
        .hasMessageContaining("balancer: magic (expected: one of");
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--slow-start", "60s,0.5,0"}))
        .hasMessage("slow start floor: 0% (expected: > 0 and <= 100)");
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--slow-start", "60s,0.5,101"}))
        .hasMessage("slow start floor: 101% (expected: > 0 and <= 100)");
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--slow-start", "60s,0.5,1%"}))
        .hasMessage("--slow-start: 1% (expected: a number)");
    assertThat(Simulate.parse(new String[] {"--slow-start", "60s,0.5,0.1"}).scenario.build()
        .slowStartFloorPercent()).isEqualTo(0.1);
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--bogus", "1"}))
        .hasMessage("flag: --bogus (unknown)");
    assertThatThrownBy(() -> Simulate.parse(new String[] {"--timeout"}))
        .hasMessage("--timeout: missing value");
    assertThat(Simulate.parseBalancers("all")).containsExactly(Algorithm.values());
  }

  @Test
  void durationsParseAndFormat() {
    assertThat(Durations.parseNanos("167ms")).isEqualTo(167_000_000L);
    assertThat(Durations.parseNanos("1.5s")).isEqualTo(1_500_000_000L);
    assertThat(Durations.parseNanos("500us")).isEqualTo(500_000L);
    assertThat(Durations.parseNanos("2m")).isEqualTo(120_000_000_000L);
    assertThat(Durations.format(2_000_000_000L)).isEqualTo("2s");
    assertThat(Durations.format(1_500_000_000L)).isEqualTo("1.5s");
    assertThat(Durations.format(167_000_000L)).isEqualTo("167ms");
    assertThatThrownBy(() -> Durations.parseNanos("-3ms")).hasMessageStartingWith("duration: -3ms (expected:");
    assertThatThrownBy(() -> Durations.parseNanos("12")).hasMessageStartingWith("duration: 12 (expected:");
  }

  @Test
  void distributionsDrawWhatTheySay() throws IOException {
    SplittableRandom random = new SplittableRandom(3);
    LatencyDistribution normal = LatencyDistribution.parse("normal:100ms,10ms");
    LatencyDistribution logNormal = LatencyDistribution.parse("lognormal:100ms,0.5");
    int n = 20_000;
    double sum = 0;
    int belowMedian = 0;
    for (int i = 0; i < n; i++) {
      sum += normal.sampleNanos(random);
      if (logNormal.sampleNanos(random) < 100_000_000L) {
        belowMedian++;
      }
    }
    assertThat(sum / n).isBetween(99.5e6, 100.5e6);
    assertThat(belowMedian).isBetween(n / 2 - 400, n / 2 + 400);
    assertThat(LatencyDistribution.parse("2s").sampleNanos(random)).isEqualTo(2_000_000_000L);

    Path file = dir.resolve("latencies.txt");
    Files.writeString(file, "# recorded\n10ms\n\n30\n");
    LatencyDistribution replay = LatencyDistribution.parse("replay:" + file);
    for (int i = 0; i < 100; i++) {
      assertThat(replay.sampleNanos(random)).isIn(10_000_000L, 30_000_000L);
    }
    Files.writeString(file, "10ms\nslow\n");
    assertThatThrownBy(() -> LatencyDistribution.parse("replay:" + file))
        .hasMessageContaining("latency: slow at " + file + ":2");
    assertThatThrownBy(() -> LatencyDistribution.parse("gamma:1,2"))
        .hasMessageContaining("expected: constant:20ms, normal:MEAN,STDDEV");
  }
}

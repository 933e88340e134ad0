package dev.ballast.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.sim.Result;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs a small demo end to end on real servers on 127.0.0.1 through the lb-netty client. */
class DemoTest {

  @TempDir Path dir;

  @Test
  void smallDemoSendsEveryRequestThroughTheClientAndWritesTheReport() throws Exception {
    Path chart = dir.resolve("demo.svg");
    Path json = dir.resolve("demo.json");
    // What is checked is that every request went through the client and ended, not how fast:
    // a cold JVM on a busy machine can take seconds over its first requests.
    Demo.DemoConfig c = Demo.DemoConfig.parse(new String[] {"--backends", "3", "--latency", "5ms",
        "--slow-latency", "50ms", "--timeout", "2s", "--rate", "200", "--duration", "2s",
        "--warmup", "0s", "--balancers", "round_robin,p2c_peak_ewma", "--chart", chart.toString(),
        "--json", json.toString(), "--hedge", "p90"});
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<Result> results = Demo.run(c, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    assertThat(results).extracting(Result::balancer)
        .containsExactly("round_robin", "p2c_peak_ewma", "p2c_peak_ewma+hedge");
    for (Result r : results) {
      assertThat(r.requests()).isEqualTo(400);
      assertThat(r.successes()).isBetween(1L, 400L);
      assertThat(r.histogram().getTotalCount()).isEqualTo(400);
      assertThat(r.percentileMillis(50)).isGreaterThanOrEqualTo(5.0);
    }
    assertThat(Arrays.stream(results.get(0).picksPerBackend()).sum()).isEqualTo(400);
    assertThat(Arrays.stream(results.get(1).picksPerBackend()).sum()).isEqualTo(400);
    // The hedged run's backends received the calls plus the hedges: at most 2% of 400.
    assertThat(Arrays.stream(results.get(2).picksPerBackend()).sum()).isBetween(400L, 408L);
    // Round robin, no retries: each of the 3 servers received a third of the requests.
    assertThat(Arrays.stream(results.get(0).picksPerBackend()).boxed())
        .allSatisfy(n -> assertThat(n).isBetween(133L, 134L));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("== round_robin", "== p2c_peak_ewma", "balancer", "chart: " + chart,
        "== p2c_peak_ewma+hedge: 2s at 200 req/s, hedging p90 (budget 2%)", "hedges: ",
        "% extra load", "after backend 0 recovered at 1.5s, its share per second: 1.5s-2.5s ",
        "Share of requests sent to backend 0 in each second after it recovered at 1.5s (1/3 is"
            + " 33.33%):\n  round_robin         1.5s-2.5s ");
    assertThat(out).containsPattern("(?m)^start: load average [0-9.]+ [0-9.]+ [0-9.]+ \\(\\d+ cores\\)$")
        .containsPattern("(?m)^end: load average ");
    String svg = Files.readString(chart);
    assertThat(svg.split("<polyline", -1)).hasSize(4);
    // the legend gives each run's share sent to the slow backend, as the table's line does
    assertThat(svg.split("% to the slow backend</text>", -1)).hasSize(4);
    java.util.regex.Matcher share = java.util.regex.Pattern
        .compile("while it was slow \\(1/3 is 33.33%\\): round_robin ([0-9.]+%)").matcher(out);
    assertThat(share.find()).as("the share line in %s", out).isTrue();
    assertThat(svg).contains(">" + share.group(1) + " to the slow backend</text>");
    assertThat(Files.readString(json)).contains("\"balancer\": \"round_robin\", \"requests\": 400");
  }

  @Test
  void flagsAreCheckedAndDefaultToTheScaledExperiment() {
    Demo.DemoConfig d = Demo.DemoConfig.parse(new String[0]);
    assertThat(d.backends).isEqualTo(11);
    assertThat(d.chart).as("the chart goes under target/, not into the repository")
        .isEqualTo(java.nio.file.Path.of("target", "ballast-demo.svg"));
    assertThat(d.balancers).containsExactly(Algorithm.ROUND_ROBIN, Algorithm.LEAST_LOADED,
        Algorithm.P2C_PEAK_EWMA);
    assertThat(d.describe()).isEqualTo("11 backends normal(20ms,600us), 1000 req/s, 20s per"
        + " balancer, timeout 120ms (enforced), slow: backend 0 240ms from 5s to 15s");
    assertThat(Demo.DemoConfig.parse(new String[] {"--deadline", "measure"}).describe())
        .contains("timeout 120ms (measured, not enforced)");
    Demo.DemoConfig failing = Demo.DemoConfig.parse(new String[] {"--fail-fast"});
    assertThat(failing.slowWindow().fails()).isTrue();
    assertThat(failing.describe()).contains("failing: backend 0 errors in 1ms from 5s to 15s");
    assertThatThrownBy(() -> Demo.DemoConfig.parse(new String[] {"--duration", "100ms"}))
        .hasMessage("--duration: 100ms (expected: >= 1s)");
    assertThatThrownBy(() -> Demo.DemoConfig.parse(new String[] {"--deadline", "maybe"}))
        .hasMessage("--deadline: maybe (expected: enforce or measure)");
    assertThat(Demo.DemoConfig.parse(new String[] {"--hedge", "30ms"}).hedging.delay())
        .hasMillis(30);
    assertThat(Demo.DemoConfig.parse(new String[] {"--hedge", "p98"}).hedging.percentile())
        .isEqualTo(0.98, org.assertj.core.api.Assertions.within(1e-9));
    assertThatThrownBy(() -> Demo.DemoConfig.parse(new String[] {"--hedge", "p100"}))
        .hasMessage("--hedge: p100 (expected: a percentile such as p98, or a delay such as 30ms)");
  }
}

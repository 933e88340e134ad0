package dev.ballast.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Envoy's endpoint-load-metrics header, text and JSON forms, and what is rejected. */
class EndpointLoadMetricsTest {

  @Test
  void readsTheTextForm() {
    LoadReport r = EndpointLoadMetrics.parse(
        "TEXT cpu_utilization=0.3, rps_fractional=120,eps=2 , named_metrics.queue=4,"
            + " mem_utilization=0.9, application_utilization=0.25");
    assertThat(r).isEqualTo(LoadReport.of(0.3, 0.25, 120, 2, Map.of("queue", 4.0)));
    assertThat(r.rejected()).isZero();
    assertThat(r.utilization()).isEqualTo(0.25);
  }

  @Test
  void writesTheTextFormItReads() {
    LoadReport r = LoadReport.of(0.25, 0.5, 120.5, 2, Map.of("queue", 4.0));
    assertThat(EndpointLoadMetrics.text(r)).isEqualTo("TEXT cpu_utilization=0.25,"
        + " rps_fractional=120.5, eps=2.0, application_utilization=0.5, named_metrics.queue=4.0");
    assertThat(EndpointLoadMetrics.parse(EndpointLoadMetrics.text(r))).isEqualTo(r);
    assertThat(EndpointLoadMetrics.parse(EndpointLoadMetrics.text(LoadReport.EMPTY)))
        .isEqualTo(LoadReport.EMPTY);
  }

  @Test
  void readsTheJsonFormWithProtoOrCamelNames() {
    LoadReport r = EndpointLoadMetrics.parse("JSON {\"cpu_utilization\": 0.3,"
        + " \"rpsFractional\": 120, \"eps\": 2, \"named_metrics\": {\"queue\": 4},"
        + " \"request_cost\": {\"db\": 12}, \"mem_utilization\": 0.5, \"note\": \"x\\\"y\","
        + " \"tags\": [1, {\"a\": 2}, true, null]}");
    assertThat(r).isEqualTo(LoadReport.of(0.3, 0, 120, 2, Map.of("queue", 4.0)));
  }

  @Test
  void badValuesAreDroppedAndCountedNeverThrown() {
    LoadReport text = EndpointLoadMetrics.parse(
        "TEXT cpu_utilization=150, rps_fractional=abc, eps=-1, named_metrics.=3, garbage, "
            + "cpu_utilization=NaN, rps_fractional=1e999");
    assertThat(text.cpuUtilization()).isZero();
    assertThat(text.qps()).isZero();
    assertThat(text.eps()).isZero();
    // 150 (above 10,000%), abc, -1, an empty name, garbage, NaN, 1e999 (infinite)
    assertThat(text.rejected()).isEqualTo(7);
    assertThat(EndpointLoadMetrics.parse("BIN CgkIARAB").rejected()).isEqualTo(1);
    assertThat(EndpointLoadMetrics.parse("cpu_utilization=0.3").rejected()).isEqualTo(1);
    assertThat(EndpointLoadMetrics.parse(null).rejected()).isEqualTo(1);
    assertThat(EndpointLoadMetrics.parse("JSON {\"cpu_utilization\": 0.3").rejected())
        .isEqualTo(1);
    assertThat(EndpointLoadMetrics.parse("JSON {\"a\": [[[[[[[[[[1]]]]]]]]]]}").rejected())
        .isEqualTo(1);
    assertThat(EndpointLoadMetrics.parse("JSON {} trailing").rejected()).isEqualTo(1);
  }

  @Test
  void longHeadersAndManyNamesAreCut() {
    StringBuilder sb = new StringBuilder("TEXT cpu_utilization=0.5");
    for (int i = 0; i < 100; i++) {
      sb.append(", named_metrics.m").append(i).append("=1");
    }
    LoadReport r = EndpointLoadMetrics.parse(sb);
    assertThat(r.namedMetrics()).hasSize(EndpointLoadMetrics.MAX_NAMED);
    assertThat(r.rejected()).isEqualTo(100 - EndpointLoadMetrics.MAX_NAMED);
    LoadReport cut = EndpointLoadMetrics.parse("TEXT cpu_utilization=0.5, eps="
        + "1".repeat(EndpointLoadMetrics.MAX_LENGTH));
    assertThat(cut.cpuUtilization()).isEqualTo(0.5);
    assertThat(cut.rejected()).isEqualTo(2); // the cut, and the eps it cut
  }
}

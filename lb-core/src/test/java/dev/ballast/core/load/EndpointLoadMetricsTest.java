package dev.ballast.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Envoy's endpoint-load-metrics header, text, JSON and binary forms, and what is rejected. */
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
  void readsTheBinaryFormByFieldNumber() {
    Proto p = new Proto()
        .dbl(1, 0.3) // cpu_utilization
        .dbl(2, 0.9) // mem_utilization: ignored
        .varint(3 << 3, 7) // rps (deprecated): ignored
        .entry(4, "db", 12) // request_cost: ignored
        .entry(5, "disk", 0.5) // utilization: a named metric
        .dbl(6, 120) // rps_fractional
        .dbl(7, 2) // eps
        .entry(8, "queue", 4) // named_metrics
        .dbl(9, 0.25) // application_utilization
        .fixed32(15, 1); // a field unknown here: skipped
    LoadReport r = EndpointLoadMetrics.parse("BIN " + p.base64());
    assertThat(r).isEqualTo(LoadReport.of(0.3, 0.25, 120, 2, Map.of("disk", 0.5, "queue", 4.0)));
    assertThat(r.rejected()).isZero();
    assertThat(EndpointLoadMetrics.parse("BIN ")).isEqualTo(LoadReport.EMPTY);
    // without padding, and in the URL-safe alphabet
    byte[] bytes = new Proto().dbl(1, 0.3).dbl(6, 120).entry(8, "q~?", 4).bytes();
    LoadReport expected = LoadReport.of(0.3, 0, 120, 0, Map.of("q~?", 4.0));
    assertThat(EndpointLoadMetrics.parse("BIN " + Base64.getEncoder().withoutPadding()
        .encodeToString(bytes))).isEqualTo(expected);
    assertThat(EndpointLoadMetrics.parse("BIN " + Base64.getUrlEncoder()
        .encodeToString(bytes))).isEqualTo(expected);
  }

  @Test
  void aMalformedBinaryFormKeepsWhatCameBeforeAndCountsOnce() {
    String cpu = new Proto().dbl(1, 0.3).base64();
    byte[] truncated = new Proto().dbl(1, 0.3).dbl(6, 120).bytes();
    LoadReport cut = EndpointLoadMetrics.parse("BIN " + Base64.getEncoder()
        .encodeToString(Arrays.copyOf(truncated, truncated.length - 3)));
    assertThat(cut.cpuUtilization()).isEqualTo(0.3);
    assertThat(cut.qps()).isZero();
    assertThat(cut.rejected()).isEqualTo(1);
    // the same bytes as gRPC's trailer and out-of-band stream carry them, not in base64
    assertThat(EndpointLoadMetrics.parseBinary(Arrays.copyOf(truncated, truncated.length - 3)))
        .isEqualTo(cut);
    assertThat(EndpointLoadMetrics.parseBinary(truncated))
        .isEqualTo(EndpointLoadMetrics.parse(
            "BIN " + Base64.getEncoder().encodeToString(truncated)));
    assertThat(EndpointLoadMetrics.parseBinary(new byte[] {0x09, 0x01}).rejected()).isEqualTo(1);
    assertThat(EndpointLoadMetrics.parseBinary(null).rejected()).isEqualTo(1);
    assertThat(EndpointLoadMetrics.parse("BIN " + cpu + "!").rejected()).isEqualTo(1);
    // a group (wire type 3), an 11-byte varint, a length past the end, a NaN value
    assertThat(EndpointLoadMetrics.parse("BIN " + new Proto().varint(1 << 3 | 3, 0).base64())
        .rejected()).isEqualTo(1);
    // a tag in 11 bytes (ten of continuation, then 1), then a field that must not be read
    Proto longVarint = new Proto();
    for (int i = 0; i < 10; i++) {
      longVarint.out.write(0x80);
    }
    longVarint.out.write(0x01);
    longVarint.dbl(7, 2);
    LoadReport eleven = EndpointLoadMetrics.parse("BIN " + longVarint.base64());
    assertThat(eleven.eps()).isZero();
    assertThat(eleven.rejected()).isEqualTo(1);
    // field number 0, and one past 2^29 - 1 whose low bits would alias field 1
    for (long tag : new long[] {0 << 3 | 1, (1L << 32) | (1 << 3 | 1)}) {
      LoadReport r = EndpointLoadMetrics.parse("BIN " + new Proto().varint(tag, 0).base64());
      assertThat(r.cpuUtilization()).as("tag %x", tag).isZero();
      assertThat(r.rejected()).as("tag %x", tag).isEqualTo(1);
    }
    assertThat(EndpointLoadMetrics.parse("BIN " + new Proto().varint(8 << 3 | 2, 5).base64())
        .rejected()).isEqualTo(1);
    LoadReport nan = EndpointLoadMetrics.parse("BIN " + new Proto().dbl(1, Double.NaN)
        .dbl(7, 2).base64());
    assertThat(nan.eps()).isEqualTo(2);
    assertThat(nan.rejected()).isEqualTo(1);
  }

  @Test
  void aNameInBothMapsReadsTheUtilizationsInEveryForm() {
    LoadReport bin = EndpointLoadMetrics.parse("BIN " + new Proto().entry(5, "q", 0.5)
        .entry(8, "q", 7).base64()); // utilization (5) first, as protobuf writes it
    LoadReport text = EndpointLoadMetrics.parse(
        "TEXT utilization.q=0.5, named_metrics.q=7");
    LoadReport json = EndpointLoadMetrics.parse(
        "JSON {\"utilization\": {\"q\": 0.5}, \"named_metrics\": {\"q\": 7}}");
    for (LoadReport r : List.of(bin, text, json)) {
      assertThat(r.namedMetrics()).isEqualTo(Map.of("q", 0.5));
    }
  }

  /** Writes protobuf's wire format for the tests: tags, varints, doubles, map entries. */
  private static final class Proto {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Proto varint(long tag, long value) {
      raw(tag);
      raw(value);
      return this;
    }

    Proto dbl(int field, double value) {
      raw(field << 3 | 1);
      long bits = Double.doubleToRawLongBits(value);
      for (int i = 0; i < 8; i++) {
        out.write((int) (bits >>> (8 * i)));
      }
      return this;
    }

    Proto fixed32(int field, int value) {
      raw(field << 3 | 5);
      for (int i = 0; i < 4; i++) {
        out.write(value >>> (8 * i));
      }
      return this;
    }

    Proto entry(int field, String key, double value) {
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      Proto e = new Proto();
      e.raw(1 << 3 | 2);
      e.raw(k.length);
      e.out.writeBytes(k);
      e.dbl(2, value);
      byte[] body = e.bytes();
      raw(field << 3 | 2);
      raw(body.length);
      out.writeBytes(body);
      return this;
    }

    private void raw(long v) {
      while ((v & ~0x7FL) != 0) {
        out.write((int) (v & 0x7F) | 0x80);
        v >>>= 7;
      }
      out.write((int) v);
    }

    byte[] bytes() {
      return out.toByteArray();
    }

    String base64() {
      return Base64.getEncoder().encodeToString(bytes());
    }
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

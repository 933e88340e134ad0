package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.load.LoadReport;
import io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The binary form of Envoy's {@code endpoint-load-metrics} header, as the xds protobuf classes
 * that grpc-xds carries serialize an {@code OrcaLoadReport}, read by lb-core's own reader.
 */
class BinaryHeaderParityTest {

  private static final OrcaLoadReport FULL = OrcaLoadReport.newBuilder()
      .setCpuUtilization(0.7).setMemUtilization(0.9).setApplicationUtilization(0.8)
      .setRps(1000).setRpsFractional(1000.5).setEps(3.5)
      .putRequestCost("db", 12).putUtilization("disk", 0.4).putNamedMetrics("queue", 6)
      .putNamedMetrics("pool", 0.5).build();

  @Test
  void everyFieldOfASerializedReportReadsAsTheProtobufClassesWroteIt() {
    String base64 = Base64.getEncoder().encodeToString(FULL.toByteArray());
    LoadReport r = EndpointLoadMetrics.parse("BIN " + base64);
    assertThat(r).isEqualTo(LoadReport.of(0.7, 0.8, 1000.5, 3.5,
        Map.of("disk", 0.4, "queue", 6.0, "pool", 0.5)));
    assertThat(r.rejected()).isZero();
  }

  @Test
  void anEmptyReportAndOneOfDefaultsReadAsEmpty() {
    assertThat(EndpointLoadMetrics.parse("BIN " + Base64.getEncoder().encodeToString(
        OrcaLoadReport.getDefaultInstance().toByteArray()))).isEqualTo(LoadReport.EMPTY);
  }
}

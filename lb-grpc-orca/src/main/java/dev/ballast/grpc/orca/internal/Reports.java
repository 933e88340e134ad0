package dev.ballast.grpc.orca.internal;

import dev.ballast.core.load.LoadReport;
import io.grpc.services.MetricReport;
import java.util.Map;

/** ORCA's reports (grpc-services' {@link MetricReport}) as lb-core's {@link LoadReport}. */
public final class Reports {

  private Reports() {}

  /**
   * Returns the report as lb-core reads it: CPU and application utilization, qps, eps, and the
   * named utilizations; bad values are dropped and counted by {@link LoadReport#of}.
   */
  public static LoadReport of(MetricReport r) {
    Map<String, Double> named = r.getUtilizationMetrics();
    return LoadReport.of(r.getCpuUtilization(), r.getApplicationUtilization(), r.getQps(),
        r.getEps(), named == null ? Map.of() : named);
  }
}

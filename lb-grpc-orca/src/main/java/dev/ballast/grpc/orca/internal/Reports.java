package dev.ballast.grpc.orca.internal;

import dev.ballast.core.load.LoadReport;
import io.grpc.services.MetricReport;
import java.util.HashMap;
import java.util.Map;

/** ORCA's reports (grpc-services' {@link MetricReport}) as lb-core's {@link LoadReport}. */
public final class Reports {

  private Reports() {}

  /**
   * Returns the report as lb-core reads it: CPU and application utilization, qps, eps, and the
   * named metrics and named utilizations as one map (a utilization wins over a named metric of
   * the same name), as Envoy's header forms are read; bad values are dropped and counted by
   * {@link LoadReport#of}.
   */
  public static LoadReport of(MetricReport r) {
    Map<String, Double> named = r.getNamedMetrics();
    Map<String, Double> utilization = r.getUtilizationMetrics();
    Map<String, Double> all;
    if (named == null || named.isEmpty()) {
      all = utilization == null ? Map.of() : utilization;
    } else if (utilization == null || utilization.isEmpty()) {
      all = named;
    } else {
      all = new HashMap<>(named);
      all.putAll(utilization);
    }
    return LoadReport.of(r.getCpuUtilization(), r.getApplicationUtilization(), r.getQps(),
        r.getEps(), all);
  }
}

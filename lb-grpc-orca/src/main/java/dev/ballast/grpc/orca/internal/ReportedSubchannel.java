package dev.ballast.grpc.orca.internal;

import dev.ballast.core.Node;
import dev.ballast.grpc.internal.PickResults;
import io.grpc.ClientStreamTracer;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.services.MetricReport;
import io.grpc.util.ForwardingSubchannel;
import io.grpc.xds.orca.OrcaOobUtil.OrcaOobReportListener;
import io.grpc.xds.orca.OrcaPerRequestUtil;
import io.grpc.xds.orca.OrcaPerRequestUtil.OrcaPerRequestReportListener;

/**
 * One subchannel as the inner load balancer sees it, with its reports on their way to its
 * lb-core node: the listener of its per-call reports (through the pick's tracer factory) and of
 * its out-of-band stream. It forwards to the subchannel made by ORCA's helper; picks hand gRPC
 * the channel's own subchannel under it, as ORCA's picker would after copying the result. The
 * pick results, with or without the per-call listener ({@link #PER_CALL}, {@link
 * #OUT_OF_BAND}), are made once per backend and tracer factory when the backend is bound, so a
 * pick allocates nothing, looks nothing up and goes through no picker of ours but lb-grpc's.
 */
final class ReportedSubchannel extends ForwardingSubchannel
    implements OrcaPerRequestReportListener, OrcaOobReportListener {

  /** Results with this subchannel's per-call report listener (ORCA's tracer) added. */
  static final PickResults PER_CALL = (s, tracers) -> {
    ReportedSubchannel r = (ReportedSubchannel) s;
    OrcaPerRequestUtil orca = OrcaPerRequestUtil.getInstance();
    return PickResult.withSubchannel(r.channels, tracers == null
        ? orca.newOrcaClientStreamTracerFactory(r)
        : orca.newOrcaClientStreamTracerFactory(tracers, r));
  };

  /** Results without the listener: the reports come out of band. */
  static final PickResults OUT_OF_BAND = (s, tracers) ->
      PickResult.withSubchannel(((ReportedSubchannel) s).channels, tracers);

  final Subchannel subchannel;
  // the channel's own subchannel under ORCA's, what gRPC gets: ORCA's picker lets it through
  // as it is, where it would copy a pick of ORCA's subchannel to unwrap it
  private final Subchannel channels;
  /** The node the subchannel's reports go to; null until bound, and after removal. */
  volatile Node<?> node;

  ReportedSubchannel(Subchannel subchannel, Subchannel channels) {
    this.subchannel = subchannel;
    this.channels = channels;
  }

  @Override
  protected Subchannel delegate() {
    return subchannel;
  }

  @Override
  public void onLoadReport(MetricReport report) {
    Node<?> n = node;
    if (n != null) {
      n.reportLoad(Reports.of(report));
    }
  }
}

package dev.ballast.grpc.orca.internal;

import dev.ballast.core.Node;
import io.grpc.ClientStreamTracer;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.services.MetricReport;
import io.grpc.xds.orca.OrcaOobUtil.OrcaOobReportListener;
import io.grpc.xds.orca.OrcaPerRequestUtil;
import io.grpc.xds.orca.OrcaPerRequestUtil.OrcaPerRequestReportListener;

/**
 * One subchannel's reports on their way to its lb-core node: the listener of its per-call
 * reports (through the pick's tracer factory) and of its out-of-band stream. The pick results
 * that carry the per-call listener are made once per tracer factory the inner picker hands out
 * (none, or a backend's counted or timed factory), so a pick allocates nothing.
 */
final class ReportedSubchannel implements OrcaPerRequestReportListener, OrcaOobReportListener {

  final Subchannel subchannel;
  /** The node the subchannel's reports go to; null until bound, and after removal. */
  volatile Node<?> node;
  // two results, for the two factories a timed policy alternates (unary and streaming calls)
  private volatile Cached first;
  private volatile Cached second;

  private record Cached(ClientStreamTracer.Factory inner, PickResult result) {}

  ReportedSubchannel(Subchannel subchannel) {
    this.subchannel = subchannel;
  }

  /** Returns the inner pick with this subchannel's per-call report listener added. */
  PickResult withListener(PickResult inner) {
    ClientStreamTracer.Factory f = inner.getStreamTracerFactory();
    Cached c = first;
    if (c != null && c.inner == f) {
      return c.result;
    }
    c = second;
    if (c != null && c.inner == f) {
      return c.result;
    }
    OrcaPerRequestUtil orca = OrcaPerRequestUtil.getInstance();
    ClientStreamTracer.Factory reporting = f == null
        ? orca.newOrcaClientStreamTracerFactory(this)
        : orca.newOrcaClientStreamTracerFactory(f, this);
    Cached made = new Cached(f, PickResult.withSubchannel(inner.getSubchannel(), reporting));
    second = first;
    first = made;
    return made.result;
  }

  @Override
  public void onLoadReport(MetricReport report) {
    Node<?> n = node;
    if (n != null) {
      n.reportLoad(Reports.of(report));
    }
  }
}

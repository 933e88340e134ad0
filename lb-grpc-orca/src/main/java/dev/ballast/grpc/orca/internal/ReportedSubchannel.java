package dev.ballast.grpc.orca.internal;

import dev.ballast.core.Node;
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
 * the channel's own subchannel under it, as ORCA's picker would after copying the result: the
 * pick results, with or without the per-call listener, are made once per
 * tracer factory the inner picker hands out (none, or a backend's counted or timed factory), so
 * a pick allocates nothing and looks nothing up.
 */
final class ReportedSubchannel extends ForwardingSubchannel
    implements OrcaPerRequestReportListener, OrcaOobReportListener {

  final Subchannel subchannel;
  // the channel's own subchannel under ORCA's, what gRPC gets: ORCA's picker lets it through
  // as it is, where it would copy a pick of ORCA's subchannel to unwrap it
  private final Subchannel channels;
  /** The node the subchannel's reports go to; null until bound, and after removal. */
  volatile Node<?> node;
  // two results, for the two factories a timed policy alternates (unary and streaming calls)
  private volatile Cached first;
  private volatile Cached second;
  // the result without the listener (out-of-band reports)
  private volatile Cached plain;

  private record Cached(ClientStreamTracer.Factory inner, PickResult result) {}

  ReportedSubchannel(Subchannel subchannel, Subchannel channels) {
    this.subchannel = subchannel;
    this.channels = channels;
  }

  @Override
  protected Subchannel delegate() {
    return subchannel;
  }

  /**
   * Returns the inner pick (of this subchannel) as gRPC must get it: on the subchannel ORCA's
   * helper made, with this subchannel's per-call report listener added if {@code listen}.
   */
  PickResult result(PickResult inner, boolean listen) {
    if (!listen) {
      Cached p = plain;
      if (p == null || p.inner != inner.getStreamTracerFactory()) {
        p = new Cached(inner.getStreamTracerFactory(),
            PickResult.withSubchannel(channels, inner.getStreamTracerFactory()));
        plain = p;
      }
      return p.result;
    }
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
    Cached made = new Cached(f, PickResult.withSubchannel(channels, reporting));
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

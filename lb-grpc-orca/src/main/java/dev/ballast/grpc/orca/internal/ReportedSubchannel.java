package dev.ballast.grpc.orca.internal;

import dev.ballast.core.Node;
import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.load.LoadReport;
import dev.ballast.grpc.spi.PickResults;
import io.grpc.ClientStreamTracer;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.LoadBalancer.SubchannelStateListener;
import io.grpc.Metadata;
import io.grpc.util.ForwardingClientStreamTracer;
import io.grpc.util.ForwardingSubchannel;

/**
 * One subchannel as the inner load balancer sees it, with its reports on their way to its
 * lb-core node: each call's {@code endpoint-load-metrics-bin} trailer (through the pick's tracer
 * factory) and its out-of-band stream ({@link OobStream}). Both are read by lb-core's
 * protobuf-free reader ({@link EndpointLoadMetrics#parseBinary}): a malformed report is dropped
 * and counted by the balancer, and the call it came with ends as the server answered it (gRPC's
 * own {@code OrcaPerRequestUtil} throws from the tracer, and the call fails UNKNOWN). The pick
 * results, with or without the per-call tracer ({@link #PER_CALL}, {@link #OUT_OF_BAND}), are
 * made once per backend and tracer factory when the backend is bound, so a pick allocates
 * nothing, looks nothing up and goes through no picker of ours but lb-grpc's; without another
 * factory, one stateless tracer serves every call.
 */
final class ReportedSubchannel extends ForwardingSubchannel {

  /** The trailer gRPC servers send their per-call report in (gRFC A51). */
  static final Metadata.Key<byte[]> TRAILER = Metadata.Key.of(EndpointLoadMetrics.HEADER_BIN,
      Metadata.BINARY_BYTE_MARSHALLER);

  /** Results with this subchannel's per-call report tracer added. */
  static final PickResults PER_CALL = (s, tracers) -> {
    ReportedSubchannel r = (ReportedSubchannel) s;
    return PickResult.withSubchannel(r.subchannel,
        tracers == null ? r.trailers : new Chained(tracers, r));
  };

  /** Results without the tracer: the reports come out of band. */
  static final PickResults OUT_OF_BAND = (s, tracers) ->
      PickResult.withSubchannel(((ReportedSubchannel) s).subchannel, tracers);

  /** The channel's own subchannel, what gRPC gets. */
  final Subchannel subchannel;
  final OobStream oob;
  private final ClientStreamTracer.Factory trailers = new Alone(this);
  /** The node the subchannel's reports go to; null until bound, and after removal. */
  volatile Node<?> node;

  ReportedSubchannel(Subchannel subchannel, OobStream.Maker oob) {
    this.subchannel = subchannel;
    this.oob = oob.make(subchannel, this::report);
  }

  @Override
  protected Subchannel delegate() {
    return subchannel;
  }

  @Override
  public void start(SubchannelStateListener listener) {
    subchannel.start(state -> {
      oob.onState(state.getState());
      listener.onSubchannelState(state);
    });
  }

  @Override
  public void shutdown() {
    oob.stop();
    subchannel.shutdown();
  }

  /** Feeds a report to the node, if bound. */
  void report(LoadReport report) {
    Node<?> n = node;
    if (n != null) {
      n.reportLoad(report);
    }
  }

  /** Reads a call's trailer; never throws. */
  void trailers(Metadata trailers) {
    byte[] report;
    try {
      report = trailers.get(TRAILER);
    } catch (RuntimeException e) { // a value gRPC could not decode: a bad report
      report(EndpointLoadMetrics.parseBinary(null));
      return;
    }
    if (report != null) {
      report(EndpointLoadMetrics.parseBinary(report));
    }
  }

  /** The tracer factory of picks without other tracers: one stateless tracer for every call. */
  private static final class Alone extends ClientStreamTracer.Factory {
    private final ClientStreamTracer tracer;

    Alone(ReportedSubchannel r) {
      this.tracer = new ClientStreamTracer() {
        @Override
        public void inboundTrailers(Metadata trailers) {
          r.trailers(trailers);
        }
      };
    }

    @Override
    public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info,
        Metadata headers) {
      return tracer;
    }
  }

  /** The tracer factory of picks with other tracers: theirs, and the trailer read after. */
  private static final class Chained extends ClientStreamTracer.Factory {
    private final ClientStreamTracer.Factory others;
    private final ReportedSubchannel r;

    Chained(ClientStreamTracer.Factory others, ReportedSubchannel r) {
      this.others = others;
      this.r = r;
    }

    @Override
    public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info,
        Metadata headers) {
      ClientStreamTracer inner = others.newClientStreamTracer(info, headers);
      return new ForwardingClientStreamTracer() {
        @Override
        protected ClientStreamTracer delegate() {
          return inner;
        }

        @Override
        public void inboundTrailers(Metadata trailers) {
          inner.inboundTrailers(trailers);
          r.trailers(trailers);
        }
      };
    }
  }
}

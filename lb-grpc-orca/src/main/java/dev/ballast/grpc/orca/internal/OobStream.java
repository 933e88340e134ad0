package dev.ballast.grpc.orca.internal;

import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.load.LoadReport;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.grpc.SynchronizationContext.ScheduledHandle;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One subchannel's out-of-band ORCA stream ({@code OpenRcaService/StreamCoreMetrics}, gRFC A51),
 * opened while the subchannel is READY and reports are asked for. Each report is read by lb-core's
 * protobuf-free reader ({@link EndpointLoadMetrics#parseBinary}), so a malformed one is dropped
 * and counted by the balancer, never thrown.
 *
 * <p>A stream that ends, whatever its status, is opened again after a backoff ({@link Backoff},
 * gRPC's connection backoff), which starts over once a stream has delivered two reports (it has
 * streamed for at least one reporting period): a server that ends every stream after one report
 * sees a stream about once a backoff, not one per round trip. A server that answers UNIMPLEMENTED
 * has no ORCA service and is not asked again on this connection, as A51 says. Everything runs in
 * the channel's synchronization context.
 */
final class OobStream {

  /** ORCA's out-of-band method, with the messages as bytes. */
  static final MethodDescriptor<byte[], byte[]> METHOD =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName("xds.service.orca.v3.OpenRcaService/StreamCoreMetrics")
          .setRequestMarshaller(Bytes.INSTANCE)
          .setResponseMarshaller(Bytes.INSTANCE)
          .build();

  /** Makes the stream of a subchannel, its reports going to {@code sink}. */
  @FunctionalInterface
  interface Maker {
    OobStream make(Subchannel subchannel, Consumer<LoadReport> sink);
  }

  private final Subchannel subchannel;
  private final SynchronizationContext sync;
  private final ScheduledExecutorService timer;
  private final Consumer<LoadReport> sink;
  private final Backoff backoff;
  private Duration interval; // null: no reports asked for
  private boolean ready;
  private boolean unimplemented;
  private ClientCall<byte[], byte[]> call;
  private int reports; // delivered on the current call
  private ScheduledHandle retry;

  OobStream(Subchannel subchannel, SynchronizationContext sync, ScheduledExecutorService timer,
      Backoff backoff, Consumer<LoadReport> sink) {
    this.subchannel = subchannel;
    this.sync = sync;
    this.timer = timer;
    this.backoff = backoff;
    this.sink = sink;
  }

  /** Asks for reports every {@code period}, or for none (null); a new period reopens. */
  void configure(Duration period) {
    if (period == null ? interval == null : period.equals(interval)) {
      return;
    }
    stop();
    interval = period;
    open();
  }

  /** The subchannel's state: the stream runs while it is READY. */
  void onState(ConnectivityState state) {
    boolean now = state == ConnectivityState.READY;
    if (now == ready) {
      return;
    }
    ready = now;
    if (now) {
      unimplemented = false; // a new connection, perhaps to a new server
      open();
    } else {
      stop();
    }
  }

  /** Ends the stream and any reopening: the subchannel is shut down or reports are off. */
  void stop() {
    if (call != null) {
      ClientCall<byte[], byte[]> c = call;
      call = null;
      c.cancel("out-of-band reports no longer wanted", null);
    }
    if (retry != null) {
      retry.cancel();
      retry = null;
    }
  }

  private void open() {
    if (interval == null || !ready || unimplemented || call != null || retry != null) {
      return;
    }
    ClientCall<byte[], byte[]> c = subchannel.asChannel().newCall(METHOD, CallOptions.DEFAULT);
    call = c;
    reports = 0;
    c.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        sync.execute(() -> onReport(c, message));
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        sync.execute(() -> onEnd(c, status));
      }
    }, new Metadata());
    c.sendMessage(request(interval));
    c.halfClose();
    c.request(1);
  }

  private void onReport(ClientCall<byte[], byte[]> c, byte[] message) {
    if (c != call) {
      return; // a stream already ended
    }
    reports++;
    sink.accept(EndpointLoadMetrics.parseBinary(message));
    c.request(1);
  }

  private void onEnd(ClientCall<byte[], byte[]> c, Status status) {
    if (c != call) {
      return;
    }
    call = null;
    if (status.getCode() == Status.Code.UNIMPLEMENTED) {
      unimplemented = true;
      return;
    }
    if (reports >= 2) {
      backoff.reset();
    }
    retry = sync.schedule(() -> {
      retry = null;
      open();
    }, backoff.nextNanos(), TimeUnit.NANOSECONDS, timer);
  }

  /**
   * The request, {@code OrcaLoadReportRequest} with its {@code report_interval} (field 1, a
   * {@code google.protobuf.Duration} of seconds, field 1, and nanos, field 2), serialized by hand.
   */
  static byte[] request(Duration interval) {
    byte[] duration = new byte[22];
    int n = 0;
    if (interval.getSeconds() != 0) {
      duration[n++] = 0x08;
      n = varint(duration, n, interval.getSeconds());
    }
    if (interval.getNano() != 0) {
      duration[n++] = 0x10;
      n = varint(duration, n, interval.getNano());
    }
    byte[] out = new byte[2 + n];
    out[0] = 0x0a;
    out[1] = (byte) n; // at most 22
    System.arraycopy(duration, 0, out, 2, n);
    return out;
  }

  private static int varint(byte[] b, int at, long v) {
    while ((v & ~0x7fL) != 0) {
      b[at++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    b[at++] = (byte) v;
    return at;
  }

  /** Messages as their bytes. */
  private enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}

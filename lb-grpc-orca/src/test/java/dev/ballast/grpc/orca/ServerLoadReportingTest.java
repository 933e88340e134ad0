package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A real gRPC server set up with {@link ServerLoadReporting#install} reports through ORCA. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerLoadReportingTest {

  private static final Metadata.Key<byte[]> TRAILER =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private ReportingServers servers;
  private ManagedChannel channel;
  private ServerLoadReporting reporting;

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (servers != null) {
      servers.close();
    }
    if (reporting != null) {
      reporting.close();
    }
  }

  @Test
  void eachCallsTrailersCarryUtilizationQpsAndEps() throws Exception {
    servers = new ReportingServers();
    AtomicReference<ServerLoadReporting> installed = new AtomicReference<>();
    servers.add(b -> installed.set(
        ServerLoadReporting.install(b, () -> 0.25, Duration.ofMillis(20))));
    reporting = installed.get();
    channel = NettyChannelBuilder.forTarget(servers.target()).usePlaintext().build();
    AtomicReference<byte[]> last = new AtomicReference<>();
    Channel reading = ClientInterceptors.intercept(channel, new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method,
          CallOptions options, Channel next) {
        return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            super.start(new SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                last.set(trailers.get(TRAILER));
                super.onClose(status, trailers);
              }
            }, headers);
          }
        };
      }
    });
    OrcaLoadReport report = null;
    long start = System.nanoTime();
    // bounded: until a sample with calls in it is in the trailers (one per 20 ms), 10 s at most
    while (System.nanoTime() - start < 10_000_000_000L) {
      ReportingServers.call(reading);
      byte[] bytes = last.get();
      if (bytes != null) {
        report = OrcaLoadReport.parseFrom(bytes);
        if (report.getRpsFractional() > 0) {
          break;
        }
      }
    }
    assertThat(report).isNotNull();
    assertThat(report.getCpuUtilization()).isEqualTo(0.25);
    assertThat(report.getRpsFractional()).isPositive();
    assertThat(report.getEps()).isZero();
  }

  @Test
  void aPeriodThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> ServerLoadReporting.install(NettyServerBuilder.forPort(0),
        () -> 0.5, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("period: PT0S (expected: > 0)");
  }
}

package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.Marshallers;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.services.MetricRecorder;
import io.grpc.stub.ServerCalls;
import io.grpc.xds.orca.OrcaMetricReportingServerInterceptor;
import io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real gRPC servers whose reports are hostile: a malformed {@code endpoint-load-metrics-bin}
 * trailer on every answer, a slow server reporting itself idle, and an out-of-band ORCA service
 * that ends each stream after one report.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileReportsTest {

  private static final Metadata.Key<byte[]> TRAILER = Metadata.Key.of(
      "endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);
  // field 1 (cpu_utilization), a double, cut after one of its eight bytes
  private static final byte[] TRUNCATED = {0x09, 0x01};

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private ReportingServers servers;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws Exception {
    timer.shutdownNow();
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (servers != null) {
      servers.close();
    }
  }

  private ManagedChannel open(String policy, String config) {
    @SuppressWarnings("unchecked")
    Map<String, ?> serviceConfig = (Map<String, ?>) uncheckedParse(
        "{\"loadBalancingConfig\": [{\"" + policy + "\": " + config + "}]}");
    channel = NettyChannelBuilder.forTarget(servers.target()).usePlaintext()
        .defaultServiceConfig(serviceConfig).build();
    return channel;
  }

  private static Object uncheckedParse(String json) {
    try {
      return JsonParser.parse(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every answer's trailers carry {@code report} (a malformed one) beside the status. */
  private static ServerInterceptor trailer(byte[] report) {
    return closing((trailers, close) -> {
      trailers.put(TRAILER, report);
      close.run();
    });
  }

  /** Answers each call {@code millis} later than its handler does. */
  private ServerInterceptor answerAfter(long millis) {
    return closing((trailers, close) -> timer.schedule(close, millis, TimeUnit.MILLISECONDS));
  }

  /** What an interceptor does with an answer's close: its trailers, and the close itself. */
  private interface Closing {
    void close(Metadata trailers, Runnable close);
  }

  private static ServerInterceptor closing(Closing action) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        return next.startCall(new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            action.close(trailers, () -> super.close(status, trailers));
          }
        }, headers);
      }
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"p2c_utilization", "ballast_weighted_round_robin"})
  void aMalformedTrailerIsDroppedAndEveryAnsweredCallSucceeds(String policy) throws Exception {
    servers = new ReportingServers();
    for (int i = 0; i < 3; i++) {
      servers.add(b -> b.intercept(trailer(TRUNCATED)));
    }
    ManagedChannel ch = open(policy, "{\"blackoutPeriod\": \"0s\"}");
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < 300; i++) {
      String outcome;
      try {
        ReportingServers.call(ch);
        outcome = "OK";
      } catch (StatusRuntimeException e) {
        outcome = e.getStatus().getCode() + ": " + e.getStatus().getDescription();
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }
    assertThat(outcomes).containsExactly(Map.entry("OK", 300));
  }

  /**
   * Under {@code p2c_utilization}, a server 20 times slower than three others (100 ms against 5
   * ms) that reports utilization 10^-6 in its trailers gets few of 200 calls made one at a time:
   * the client measures it slow and does not believe its reports.
   */
  @Test
  void aSlowServerReportingItselfIdleGetsFewCalls() throws Exception {
    servers = new ReportingServers();
    for (int i = 0; i < 4; i++) {
      MetricRecorder recorder = MetricRecorder.newInstance();
      recorder.setCpuUtilizationMetric(i == 0 ? 1e-6 : 0.5);
      recorder.setQpsMetric(100);
      long delay = i == 0 ? 100 : 5;
      servers.add(b -> b.intercept(OrcaMetricReportingServerInterceptor.create(recorder))
          .intercept(answerAfter(delay)));
    }
    ManagedChannel ch = open("p2c_utilization", "{}");
    int[] calls = new int[4];
    for (int i = 0; i < 200; i++) {
      calls[ReportingServers.call(ch)]++;
    }
    // without the bound: 183 of 200
    assertThat(calls[0]).as("the liar's calls of %s", Arrays.toString(calls)).isLessThan(30);
  }

  /**
   * A server whose ORCA service ends each stream after its first report: the client opens the
   * stream again after gRPC's backoff (1 s, then 1.6 s, 2.56 s, each within 20%), not at once,
   * and one report is too few to start the backoff over. Each server's second stream must come,
   * no sooner than half the first backoff after its first, and within 4 s of its first stream a
   * server sees at most 3 (the 4th comes after 4.13 s at the soonest; starting over after each
   * stream, it would come by 3.6 s). A busy machine can only widen the gaps and lower the count,
   * so neither check depends on its speed.
   */
  @Test
  void anOutOfBandStreamEndedAfterOneReportIsReopenedAfterABackoff() throws Exception {
    byte[] report = OrcaLoadReport.newBuilder().setCpuUtilization(0.5).setRpsFractional(100)
        .build().toByteArray();
    List<List<Long>> opens = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
    servers = new ReportingServers();
    for (List<Long> opened : opens) {
      servers.add(b -> b.addService(oneReportThenEnd(report, opened)));
    }
    ManagedChannel ch = open("ballast_weighted_round_robin",
        "{\"enableOobLoadReport\": true, \"oobReportingPeriod\": \"0.1s\"}");
    ReportingServers.call(ch); // connects: each READY subchannel opens its stream
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (opens.stream().anyMatch(o -> o.size() < 2) && System.nanoTime() < until) {
      LockSupport.parkNanos(1_000_000);
    }
    long window = TimeUnit.MILLISECONDS.toNanos(4000);
    long end = Math.max(opens.get(0).get(0), opens.get(1).get(0)) + window;
    while (System.nanoTime() < end) {
      LockSupport.parkNanos(end - System.nanoTime());
    }
    for (List<Long> opened : opens) {
      assertThat(opened).as("a server's streams (open times, ns)").hasSizeGreaterThanOrEqualTo(2);
      // without the backoff: hundreds of streams, each opened within a millisecond
      assertThat(opened.get(1) - opened.get(0)).as("ns from a server's first stream to its next")
          .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(500));
      assertThat(opened.stream().filter(t -> t - opened.get(0) < window).count())
          .as("a server's streams within 4 s of its first").isLessThanOrEqualTo(3);
    }
    assertThat(ReportingServers.call(ch)).isBetween(0, 1);
  }

  private static ServerServiceDefinition oneReportThenEnd(byte[] report, List<Long> opened) {
    MethodDescriptor<byte[], byte[]> method = MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
        .setFullMethodName(ReportingServers.ORCA_STREAM)
        .setRequestMarshaller(Marshallers.BYTES).setResponseMarshaller(Marshallers.BYTES).build();
    return ServerServiceDefinition.builder("xds.service.orca.v3.OpenRcaService")
        .addMethod(method, ServerCalls.asyncServerStreamingCall((req, observer) -> {
          opened.add(System.nanoTime());
          observer.onNext(report);
          observer.onCompleted();
        }))
        .build();
  }
}

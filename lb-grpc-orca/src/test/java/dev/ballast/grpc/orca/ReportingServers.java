package dev.ballast.grpc.orca;

import dev.ballast.grpc.testing.Marshallers;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.HandlerRegistry;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.services.MetricRecorder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.xds.orca.OrcaMetricReportingServerInterceptor;
import io.grpc.xds.orca.OrcaServiceImpl;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Real gRPC servers on 127.0.0.1 answering one unary method with their index, each reporting a
 * fixed load through grpc-xds's ORCA server API: per call (trailers), out of band (the ORCA
 * service), both, or neither (then the ORCA stream is answered UNIMPLEMENTED, and counted).
 */
final class ReportingServers implements AutoCloseable {

  static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("ballast.test.Echo/Call")
      .setRequestMarshaller(Marshallers.TEXT)
      .setResponseMarshaller(Marshallers.TEXT)
      .build();

  static final String ORCA_STREAM = "xds.service.orca.v3.OpenRcaService/StreamCoreMetrics";

  /** How a server reports. */
  enum Mode { PER_CALL, OUT_OF_BAND, NONE }

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<Server> servers = new ArrayList<>();
  private final List<AtomicInteger> calls = new ArrayList<>();
  /** Lookups of the ORCA stream's method on servers without the ORCA service. */
  final AtomicInteger orcaLookups = new AtomicInteger();

  /** Starts one server per utilization, each reporting it with 100 qps. */
  static ReportingServers start(Mode mode, double... cpuUtilizations) throws IOException {
    ReportingServers s = new ReportingServers();
    for (double u : cpuUtilizations) {
      MetricRecorder recorder = MetricRecorder.newInstance();
      recorder.setCpuUtilizationMetric(u);
      recorder.setQpsMetric(100);
      s.add(b -> {
        if (mode == Mode.PER_CALL) {
          b.intercept(OrcaMetricReportingServerInterceptor.create(recorder));
        } else if (mode == Mode.OUT_OF_BAND) {
          b.addService(OrcaServiceImpl.createService(s.scheduler, recorder, 100,
              TimeUnit.MILLISECONDS));
        }
      });
    }
    return s;
  }

  /** Starts one more server, set up by {@code setup}; returns its index. */
  int add(Consumer<ServerBuilder<?>> setup) throws IOException {
    int index = servers.size();
    AtomicInteger count = new AtomicInteger();
    ServerServiceDefinition service = ServerServiceDefinition.builder("ballast.test.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((req, observer) -> {
          count.incrementAndGet();
          observer.onNext(Integer.toString(index));
          observer.onCompleted();
        }))
        .build();
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .directExecutor()
        .addService(service)
        .fallbackHandlerRegistry(new HandlerRegistry() {
          @Override
          public ServerMethodDefinition<?, ?> lookupMethod(String method, String authority) {
            if (ORCA_STREAM.equals(method)) {
              orcaLookups.incrementAndGet();
            }
            return null; // UNIMPLEMENTED
          }
        });
    setup.accept(b);
    servers.add(b.build().start());
    calls.add(count);
    return index;
  }

  int[] callCounts() {
    int[] r = new int[calls.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = calls.get(i).get();
    }
    return r;
  }

  void resetCounts() {
    calls.forEach(c -> c.set(0));
  }

  /** Returns the {@code ballast:///} target listing the servers. */
  String target() {
    StringBuilder sb = new StringBuilder("ballast:///");
    for (int i = 0; i < servers.size(); i++) {
      sb.append(i > 0 ? "," : "").append("127.0.0.1:").append(servers.get(i).getPort());
    }
    return sb.toString();
  }

  /** Calls the echo method; returns the index of the server that answered. */
  static int call(Channel channel) {
    return Integer.parseInt(ClientCalls.blockingUnaryCall(channel, ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "ping"));
  }

  @Override
  public void close() throws InterruptedException {
    servers.forEach(Server::shutdownNow);
    for (Server s : servers) {
      s.awaitTermination(10, TimeUnit.SECONDS);
    }
    scheduler.shutdownNow();
  }

  /**
   * Calls until the weights have been in force for several update periods (at least 1,000
   * calls and {@code warmUpNanos}, at most 100,000 calls), then returns each server's share of
   * {@code calls} more calls.
   */
  double[] shares(io.grpc.ManagedChannel ch, int calls, long warmUpNanos) {
    long start = System.nanoTime();
    for (int i = 0; i < 100_000
        && (i < 1000 || System.nanoTime() - start < warmUpNanos); i++) {
      call(ch);
    }
    resetCounts();
    for (int i = 0; i < calls; i++) {
      call(ch);
    }
    int[] counts = callCounts();
    double[] shares = new double[counts.length];
    for (int i = 0; i < counts.length; i++) {
      shares[i] = counts[i] / (double) calls;
    }
    return shares;
  }
}

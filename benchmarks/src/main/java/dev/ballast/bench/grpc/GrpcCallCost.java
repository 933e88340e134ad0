package dev.ballast.bench.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What a whole gRPC call pays end to end, by policy: blocking unary calls of 16 bytes over
 * loopback (grpc-netty-shaded) to 4 echo servers on 127.0.0.1, through channels that differ
 * only by load-balancing policy; one-second windows of each policy take turns, and it prints the
 * median microseconds per call of each and their difference to gRPC's round_robin. It puts the
 * picker's nanoseconds (PickerBenchmark) beside the call they belong to.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.grpc.GrpcCallCost [rounds] [policies]
 * </pre>
 */
public final class GrpcCallCost {

  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("bench.Echo/Call")
          .setRequestMarshaller(ByteMarshaller.INSTANCE)
          .setResponseMarshaller(ByteMarshaller.INSTANCE)
          .build();

  private GrpcCallCost() {}

  /** Runs the alternation; arguments: rounds (default 10), comma-separated policies. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    String[] policies = (args.length > 1 ? args[1]
        : "round_robin,least_loaded,p2c_peak_ewma,vnswrr").split(",");
    List<Server> servers = new ArrayList<>();
    StringBuilder target = new StringBuilder("ballast:///");
    for (int i = 0; i < 4; i++) {
      Server s = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(ServerServiceDefinition.builder("bench.Echo")
              .addMethod(ECHO, ServerCalls.asyncUnaryCall((req, out) -> {
                out.onNext(req);
                out.onCompleted();
              }))
              .build())
          .build().start();
      servers.add(s);
      target.append(i == 0 ? "" : ",").append("127.0.0.1:").append(s.getPort());
    }
    List<ManagedChannel> channels = new ArrayList<>();
    try {
      for (String p : policies) {
        channels.add(NettyChannelBuilder.forTarget(target.toString())
            .defaultLoadBalancingPolicy(p).usePlaintext().build());
      }
      byte[] payload = new byte[16];
      for (int warm = 0; warm < 3; warm++) {
        for (ManagedChannel c : channels) {
          micros(c, payload);
        }
      }
      double[][] us = new double[policies.length][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < policies.length; i++) {
          int k = (r + i) % policies.length; // rotate the order
          us[k][r] = micros(channels.get(k), payload);
        }
      }
      double base = median(us[0]);
      System.out.printf(Locale.ROOT, "%d rounds of 1 s windows, 4 servers on 127.0.0.1, 16-byte"
          + " unary calls, one caller thread%n", rounds);
      for (int i = 0; i < policies.length; i++) {
        double m = median(us[i]);
        System.out.printf(Locale.ROOT, "%-16s median %.2f us per call (%+.3f us, %+.2f%% against"
            + " %s)%n", policies[i], m, m - base, 100 * (m - base) / base, policies[0]);
      }
    } finally {
      for (ManagedChannel c : channels) {
        c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      for (Server s : servers) {
        s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  // Microseconds per call over a one-second window of blocking calls.
  private static double micros(ManagedChannel channel, byte[] payload) {
    long start = System.nanoTime();
    long end = start + 1_000_000_000L;
    long calls = 0;
    while (System.nanoTime() < end) {
      ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, payload);
      calls++;
    }
    return (System.nanoTime() - start) / 1e3 / calls;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return (v[(v.length - 1) / 2] + v[v.length / 2]) / 2;
  }
}

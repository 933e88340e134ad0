package dev.ballast.bench.live;

import dev.ballast.bench.grpc.ByteMarshaller;
import dev.ballast.bench.grpc.UnaryCall;
import dev.ballast.grpc.orca.ServerLoadReporting;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.ServerCallStreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * gRPC servers (grpc-netty-shaded) that answer each unary call once its {@link CapacityServer}
 * work is done and report its utilization as ORCA through {@link ServerLoadReporting} (per-call
 * trailers; sampled once a second); the client is a channel on {@code ballast:///} with the
 * policy in its default service config.
 */
final class GrpcTransport implements LiveCapacity.Transport {

  private static final MethodDescriptor<byte[], byte[]> CALL =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("bench.Live/Call")
          .setRequestMarshaller(ByteMarshaller.INSTANCE)
          .setResponseMarshaller(ByteMarshaller.INSTANCE)
          .build();
  private static final byte[] PAYLOAD = new byte[16];

  @Override
  public LiveCapacity.Cluster open(String policy, List<CapacityServer> work) throws Exception {
    List<Server> servers = new ArrayList<>();
    List<ServerLoadReporting> reporting = new ArrayList<>();
    StringBuilder target = new StringBuilder("ballast:///");
    ManagedChannel channel;
    try {
      for (CapacityServer w : work) {
        NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerServiceDefinition.builder("bench.Live")
                .addMethod(CALL, ServerCalls.asyncUnaryCall((req, out) -> w.submit(() -> {
                  // a call its client gave up (past its deadline) is still worked, not answered
                  if (!((ServerCallStreamObserver<byte[]>) out).isCancelled()) {
                    out.onNext(req);
                    out.onCompleted();
                  }
                })))
                .build());
        reporting.add(ServerLoadReporting.install(b, w::utilization, Duration.ofSeconds(1)));
        Server s = b.build().start();
        servers.add(s);
        target.append(servers.size() == 1 ? "" : ",").append("127.0.0.1:").append(s.getPort());
      }
      Map<String, ?> config = policy.endsWith("weighted_round_robin")
          ? Map.of("blackoutPeriod", LiveCapacity.BLACKOUT.toSeconds() + "s") : Map.of();
      channel = NettyChannelBuilder.forTarget(target.toString()).usePlaintext()
          .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, config))))
          .build();
    } catch (Exception | Error e) {
      stop(servers, reporting);
      throw e;
    }
    return new LiveCapacity.Cluster() {
      @Override
      public CompletableFuture<?> call() {
        return UnaryCall.start(channel, CALL, CallOptions.DEFAULT.withDeadlineAfter(
            LiveCapacity.DEADLINE.toNanos(), TimeUnit.NANOSECONDS), PAYLOAD);
      }

      @Override
      public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        stop(servers, reporting);
      }
    };
  }

  private static void stop(List<Server> servers, List<ServerLoadReporting> reporting)
      throws InterruptedException {
    reporting.forEach(ServerLoadReporting::close);
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}

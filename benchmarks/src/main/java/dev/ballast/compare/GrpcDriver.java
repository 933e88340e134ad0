package dev.ballast.compare;

import dev.ballast.bench.grpc.UnaryCall;
import dev.ballast.compare.driver.Driver;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./ballast compare}'s driver for gRPC-java: one channel (grpc-netty-shaded) over the
 * targets, with the run's policy in its default service config at the policy's defaults, a
 * deadline per call. The targets come through Ballast's static resolver ({@code
 * ballast:///host:port,...}, plain addresses), so gRPC's own policies ({@code round_robin},
 * {@code pick_first}, {@code weighted_round_robin}) and Ballast's run on the same channel code.
 */
public final class GrpcDriver {

  private static final byte[] PAYLOAD = new byte[16];

  private GrpcDriver() {}

  /** Runs the driver (arguments: see {@link Driver}). */
  public static void main(String[] args) throws Exception {
    Driver.run(args, s -> {
      ManagedChannel channel = NettyChannelBuilder.forTarget("ballast:///" + String.join(",", s.targets()))
          .usePlaintext()
          .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(s.policy(), Map.of()))))
          .build();
      long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(s.timeoutMillis());
      return () -> UnaryCall.start(channel, Backends.CALL,
          CallOptions.DEFAULT.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS), PAYLOAD);
    });
  }
}

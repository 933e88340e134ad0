package dev.ballast.examples;

import dev.ballast.grpc.orca.ServerLoadReporting;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import java.util.List;
import java.util.Map;

/** Server-reported load over gRPC (needs lb-grpc-orca): the server reports, the client weighs. */
public final class LoadReportsExample {

  /** A server side: one line makes every call's trailers carry CPU, qps and eps (ORCA). */
  public static ServerLoadReporting report(ServerBuilder<?> serverBuilder) {
    ServerLoadReporting reporting = ServerLoadReporting.install(serverBuilder);
    return reporting; // close() stops the sampling when the server stops
  }

  /** A client side: weighted round robin by the servers' reports (gRFC A58's weights). */
  public static ManagedChannel channel(String target) {
    Map<String, ?> policy = Map.of("ballast_weighted_round_robin", Map.of(
        "blackoutPeriod", "10s", "weightUpdatePeriod", "1s"));
    return ManagedChannelBuilder.forTarget(target) // e.g. "ballast:///10.0.0.1:9090,10.0.0.2:9090"
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(policy)))
        .usePlaintext()
        .build();
  }

  private LoadReportsExample() {}
}

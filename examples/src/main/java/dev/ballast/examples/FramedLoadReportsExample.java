package dev.ballast.examples;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.framed.FramedServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Server-reported load over lb-netty's framed protocol: the servers report, the client weighs. */
public final class FramedLoadReportsExample {

  /** A server side: one line reports the JVM's CPU, qps and eps to the clients that ask. */
  public static FramedServer server(FramedServer.Handler handler) {
    return FramedServer.builder().handler(handler)
        .reportLoad() // or .reportLoad(() -> myUtilization(), Duration.ofSeconds(1))
        .start();
  }

  /** A client side: gRPC's weighted_round_robin options by name, as a service config has them. */
  public static BallastClient<byte[], byte[]> client(List<Endpoint> endpoints) {
    BallastClient.Builder<byte[], byte[]> b = BallastClient.framed().endpoints(endpoints);
    ClientOptions.CLIENT.apply(b, Map.of("balancer", "weighted_round_robin",
        "blackoutPeriod", "10s", "weightUpdatePeriod", "1s"));
    return b.build();
  }

  /** The same client, its options in code. */
  public static BallastClient<byte[], byte[]> clientInCode(List<Endpoint> endpoints) {
    return BallastClient.framed().endpoints(endpoints)
        .balancer(Algorithm.WEIGHTED_ROUND_ROBIN)
        .loadReports(WeightedRoundRobinConfig.builder()
            .blackoutPeriod(Duration.ofSeconds(10)).weightUpdatePeriod(Duration.ofSeconds(1))
            .build())
        .build();
  }

  private FramedLoadReportsExample() {}
}

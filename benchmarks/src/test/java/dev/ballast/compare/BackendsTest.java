package dev.ballast.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.bench.grpc.UnaryCall;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.sim.LatencyDistribution;
import dev.ballast.sim.SlowWindow;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The comparison's servers on 127.0.0.1: HTTP/1.1, h2c and gRPC answers, and what they count. */
class BackendsTest {

  @Test
  void answersEveryProtocolAndCountsTheSlowBackendsShare() throws Exception {
    try (Backends backends = Backends.start(2, null)) {
      for (BallastClient.Builder<HttpRequest, HttpResponse> b : java.util.List.of(BallastClient.http(),
          BallastClient.http2())) {
        try (BallastClient<HttpRequest, HttpResponse> client = b
            .endpoints(String.join(",", backends.httpTargets())).balancer("round_robin")
            .timeout(Duration.ofSeconds(10)).build()) {
          HttpResponse r = client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
          assertThat(r.status()).isEqualTo(200);
          assertThat(r.bodyText()).isEqualTo("ok");
        }
      }
      ManagedChannel channel = NettyChannelBuilder.forTarget(backends.grpcTargets().get(1)).usePlaintext().build();
      try {
        byte[] echo = UnaryCall.start(channel, Backends.CALL, CallOptions.DEFAULT, new byte[] {7})
            .get(10, TimeUnit.SECONDS);
        assertThat(echo).containsExactly(7);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      assertThat(backends.received()[0] + backends.received()[1]).isEqualTo(3);

      // a run with backend 0 slow (by 1 ms) for an hour: round robin sends it half of 4 calls
      backends.begin(new SlowWindow(0, 0, TimeUnit.HOURS.toNanos(1), LatencyDistribution.constant(1_000_000L)));
      assertThat(backends.received()).containsExactly(0, 0);
      try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
          .endpoints(String.join(",", backends.httpTargets())).balancer("round_robin")
          .timeout(Duration.ofSeconds(10)).build()) {
        for (int i = 0; i < 4; i++) {
          client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
        }
      }
      assertThat(backends.received()).containsExactly(2, 2);
      assertThat(backends.slowShare()).isEqualTo(50.0);
    }
  }
}

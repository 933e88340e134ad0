package dev.ballast.examples;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.retry.Backoff;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** lb-netty's framed protocol: two backends on 127.0.0.1, one 20 ms slower, and a client. */
public final class FramedExample {

  /** Makes {@code calls} calls; returns how many each backend (fast, slow) answered. */
  public static long[] run(int calls) throws Exception {
    try (FramedServer fast = FramedServer.start(FramedServer.echo()); // 127.0.0.1, ephemeral port
        FramedServer slow = FramedServer.start(
            request -> request.replyAfter(Duration.ofMillis(20), request.payload()));
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(fast.endpoint(), slow.endpoint())) // or "10.0.0.1:9000;weight=3,..."
            .balancer(Algorithm.P2C_PEAK_EWMA)       // or .balancer("vnswrr"), or any BalancerFactory
            .timeout(Duration.ofMillis(500))         // per call, all attempts included
            .retryPolicy(RetryPolicy.builder().maxAttempts(3)
                .backoff(Backoff.exponential(Duration.ofMillis(25), Duration.ofMillis(250))).build())
            .hedging(Hedging.atPercentile(0.98))     // backup requests for idempotent calls, 2 % budget
            .build()) {
      for (int i = 0; i < calls; i++) {
        byte[] order = ("order-" + i).getBytes(StandardCharsets.UTF_8);
        byte[] reply = client.call(order, CallOptions.idempotent()).get(); // a CompletableFuture
        if (reply.length != order.length) {
          throw new IllegalStateException("unexpected reply to order-" + i);
        }
      }
      return new long[] {fast.requests(), slow.requests()};
    }
  }

  /** Runs 200 calls and prints how each backend fared. */
  public static void main(String[] args) throws Exception {
    long[] answered = run(200);
    System.out.printf("fast backend: %d calls, slow backend: %d%n", answered[0], answered[1]);
  }
}

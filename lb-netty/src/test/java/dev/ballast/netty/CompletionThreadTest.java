package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.testing.Await;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** On which thread futures complete, and closing from an event loop. */
class CompletionThreadTest {

  @Test
  void futuresCompleteOnTheEventLoopOrOnTheCompletionExecutor() throws Exception {
    EventLoopGroup group = Transport.newGroup(1, "client-loop");
    ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "callbacks"));
    // The server answers only once the test has attached its stage: a stage attached to a
    // future that is already complete would run on the caller's thread instead.
    CompletableFuture<Void> release = new CompletableFuture<>();
    try (FramedServer held = FramedServer.start(req -> release.thenApply(v -> req.payload()));
        BallastClient<byte[], byte[]> onLoop = BallastClient.framed()
            .endpoints(List.of(held.endpoint())).eventLoopGroup(group).build();
        BallastClient<byte[], byte[]> onExecutor = BallastClient.framed()
            .endpoints(List.of(held.endpoint())).eventLoopGroup(group)
            .completionExecutor(callbacks).build()) {
      // A dependent stage runs on the thread that completed the future.
      CompletableFuture<String> loopThread =
          onLoop.call(new byte[] {1}).thenApply(r -> Thread.currentThread().getName());
      CompletableFuture<String> executorThread =
          onExecutor.call(new byte[] {1}).thenApply(r -> Thread.currentThread().getName());
      release.complete(null);
      assertThat(loopThread.get(10, TimeUnit.SECONDS)).startsWith("client-loop");
      assertThat(executorThread.get(10, TimeUnit.SECONDS)).isEqualTo("callbacks");
    } finally {
      callbacks.shutdownNow();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void closeCalledOnAnEventLoopStartsTheCloseWithoutWaitingOnThatLoop() throws Exception {
    EventLoopGroup group = Transport.newGroup(1, "only-loop");
    try (FramedServer stall = FramedServer.start(req -> new CompletableFuture<>())) {
      BallastClient<byte[], byte[]> client = BallastClient.framed()
          .endpoints(List.of(stall.endpoint()))
          .eventLoopGroup(group)
          .timeout(Duration.ofSeconds(30))
          .closeGrace(Duration.ofMillis(200))
          .build();
      CompletableFuture<byte[]> stalled = client.call(new byte[] {1});
      Await.until(Duration.ofSeconds(10), () -> "request at the server",
          () -> stall.requests() == 1);
      // On the client's only loop, close() must return at once: its grace timer and the
      // calls' ends need this very loop (blocking it would stall every client on it).
      int inFlightAfterClose = group.next().submit(() -> {
        client.close();
        return client.inFlightCalls();
      }).get(5, TimeUnit.SECONDS);
      assertThat(inFlightAfterClose).isEqualTo(1);
      // The close then ends by itself: the stalled call fails after the grace.
      client.closeAsync(Duration.ZERO).get(10, TimeUnit.SECONDS);
      assertThat(client.inFlightCalls()).isZero();
      assertThat(stalled).isCompletedExceptionally();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}

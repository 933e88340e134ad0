package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.testing.Await;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One caller's slow callback must not hold up other clients: two clients share one event loop;
 * the first one's callback blocks (until the test lets it go) and the second one's deadline must
 * still be swept. The second client's deadlines run on a fake ticker that the test moves, and the
 * first one's answer is held by its server until the callback is attached, so that it completes
 * on the loop: nothing here depends on timing.
 */
class SlowCallbackTest {

  private static final long MS = 1_000_000L;

  private final BlockingQueue<CompletableFuture<byte[]>> held = new LinkedBlockingQueue<>();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final CountDownLatch release = new CountDownLatch(1);
  private EventLoopGroup loop;
  private FramedServer holding;
  private FramedServer stalled;

  @BeforeEach
  void start() {
    loop = Transport.newGroup(1, "shared-loop");
    holding = FramedServer.start(req -> {
      CompletableFuture<byte[]> reply = new CompletableFuture<>();
      held.add(reply);
      return reply;
    });
    stalled = FramedServer.start(req -> new CompletableFuture<>());
  }

  @AfterEach
  void stop() {
    release.countDown();
    holding.close();
    stalled.close();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /** A client on the shared loop whose deadlines run on the test's ticker. */
  private BallastClient<byte[], byte[]> victim() {
    return BallastClient.framed()
        .endpoints(List.of(stalled.endpoint()))
        .eventLoopGroup(loop)
        .ticker(now::get)
        .timeout(Duration.ofMillis(100))
        .lateAnswerWait(Duration.ZERO)
        .maxAttempts(1)
        .build();
  }

  /** Calls, attaches a callback that blocks until released, then lets the server answer. */
  private CompletableFuture<Void> blockingCallback(BallastClient<byte[], byte[]> client)
      throws InterruptedException {
    CompletableFuture<Void> callback = client.call(new byte[] {1}).thenRun(this::awaitRelease);
    CompletableFuture<byte[]> reply = held.poll(10, TimeUnit.SECONDS);
    assertThat(reply).as("request reached the holding server").isNotNull();
    reply.complete(new byte[] {1});
    return callback;
  }

  private void awaitRelease() {
    try {
      release.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Moves the victim's clock past its call's deadline; the call must end while blocked. */
  private void deadlinePassesWhileTheCallbackBlocks(BallastClient<byte[], byte[]> victim,
      CompletableFuture<byte[]> call, CompletableFuture<Void> callback) {
    now.addAndGet(150 * MS);
    Await.until(Duration.ofSeconds(10),
        () -> "the victim's deadline swept while another client's callback blocks",
        call::isDone);
    assertThatThrownBy(() -> call.get()).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(DeadlineExceededException.class);
    assertThat(callback).as("the slow callback still runs").isNotDone();
    assertThat(victim.inFlightCalls()).isZero();
  }

  @Test
  void aSlowCallbackOnTheCompletionExecutorLeavesAnotherClientsDeadlinesOnTime()
      throws Exception {
    ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "callbacks"));
    try (BallastClient<byte[], byte[]> slowCaller = BallastClient.framed()
            .endpoints(List.of(holding.endpoint()))
            .eventLoopGroup(loop)
            .completionExecutor(callbacks)
            .build();
        BallastClient<byte[], byte[]> victim = victim()) {
      CompletableFuture<byte[]> call = victim.call(new byte[] {2});
      Await.until(Duration.ofSeconds(10), () -> "request at the stalled server",
          () -> stalled.requests() == 1);
      CompletableFuture<Void> callback = blockingCallback(slowCaller);
      deadlinePassesWhileTheCallbackBlocks(victim, call, callback);
      release.countDown();
      callback.get(10, TimeUnit.SECONDS);
    } finally {
      callbacks.shutdownNow();
    }
  }

  @Test
  void closeCalledFromACompletionCallbackReturnsAndTheLoopGoesOn() throws Exception {
    BallastClient<byte[], byte[]> closing = BallastClient.framed()
        .endpoints(List.of(holding.endpoint()))
        .eventLoopGroup(loop)
        .timeout(Duration.ofSeconds(60))
        .closeGrace(Duration.ofSeconds(60))
        .build();
    try (BallastClient<byte[], byte[]> victim = victim()) {
      // Two calls held by the server; the first answered closes the client from its callback,
      // on the loop, while the other is in flight: waiting for it there would take the whole
      // grace (60 s) and stall the loop.
      List<CompletableFuture<Integer>> callbacks = List.of(
          closing.call(new byte[] {1}), closing.call(new byte[] {2})).stream()
          .map(f -> f.thenApply(r -> {
            closing.close();
            return closing.inFlightCalls();
          })).toList();
      Await.until(Duration.ofSeconds(10), () -> "both requests held: " + held.size(),
          () -> held.size() == 2);
      held.poll().complete(new byte[] {1});
      assertThat(CompletableFuture.anyOf(callbacks.toArray(CompletableFuture[]::new))
          .get(10, TimeUnit.SECONDS)).as("calls in flight after close() in the callback")
          .isEqualTo(1);
      // The loop goes on: another client's deadline is swept.
      CompletableFuture<byte[]> call = victim.call(new byte[] {3});
      Await.until(Duration.ofSeconds(10), () -> "request at the stalled server",
          () -> stalled.requests() == 1);
      now.addAndGet(150 * MS);
      Await.until(Duration.ofSeconds(10), () -> "the victim's deadline swept", call::isDone);
      assertThatThrownBy(() -> call.get()).cause()
          .isInstanceOf(DeadlineExceededException.class);
      // The close ends when the last call does.
      held.poll().complete(new byte[] {2});
      closing.closeAsync(Duration.ZERO).get(10, TimeUnit.SECONDS);
      assertThat(closing.inFlightCalls()).isZero();
    }
  }

  @Test
  void aCompletionExecutorThatThrowsStillCompletesEveryFuture() throws Exception {
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(holding.endpoint()))
        .eventLoopGroup(loop)
        .completionExecutor(task -> {
          throw new IllegalStateException("executor broken");
        })
        .build()) {
      CompletableFuture<byte[]> call = client.call(new byte[] {1});
      held.poll(10, TimeUnit.SECONDS).complete(new byte[] {7});
      // The future completes on the thread that ended the call, as without an executor.
      assertThat(call.get(10, TimeUnit.SECONDS)).containsExactly(7);
      assertThat(client.inFlightCalls()).isZero();
      CompletableFuture<byte[]> next = client.call(new byte[] {2});
      held.poll(10, TimeUnit.SECONDS).complete(new byte[] {8});
      assertThat(next.get(10, TimeUnit.SECONDS)).containsExactly(8);
    }
  }
}

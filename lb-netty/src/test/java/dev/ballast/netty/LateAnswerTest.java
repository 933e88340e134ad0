package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A deadline frees the caller, not the server: a written framed request stays pending on its
 * node until its late answer comes, and the balancer hears the true latency. Time is a fake
 * ticker that the test moves (the client's deadlines, pools and balancer all read it), so the
 * latencies are exact; the server holds each request until the test answers it.
 *
 * <p>One clock is real: the pool waits for a connection at most the call's remaining time (100 ms
 * of the fake clock) on the event loop's real timer. A JVM's first connection loads and
 * interprets the whole connect path, which on a loaded machine took longer than that (the first
 * test then failed with the acquire's timeout); so the class first makes a call through a client
 * of its own, and every test's connection takes the warm path.
 */
class LateAnswerTest {

  private static final Duration TIMEOUT = Duration.ofMillis(100);
  private static final long MS = 1_000_000L;

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final BlockingQueue<CompletableFuture<byte[]>> held = new LinkedBlockingQueue<>();
  private FramedServer server;

  @BeforeAll
  static void warmTheConnectPath() throws Exception {
    try (FramedServer echo = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> warm = BallastClient.framed()
            .endpoints(List.of(echo.endpoint())).timeout(Duration.ofSeconds(30)).build()) {
      assertThat(warm.call(new byte[] {1}).get(30, TimeUnit.SECONDS)).containsExactly(1);
    }
  }

  @BeforeEach
  void start() {
    server = FramedServer.start(req -> {
      CompletableFuture<byte[]> reply = new CompletableFuture<>();
      held.add(reply);
      return reply;
    });
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private BallastClient<byte[], byte[]> client(Duration lateAnswerWait) {
    return BallastClient.framed()
        .endpoints(server.endpoint().toString())
        .balancer(Algorithm.P2C_PEAK_EWMA)
        .balancerConfig(BalancerConfig.builder().ticker(now::get).build())
        .ticker(now::get)
        .timeout(TIMEOUT)
        .maxAttempts(1)
        .lateAnswerWait(lateAnswerWait)
        .seed(7)
        .build();
  }

  /**
   * Calls, waits until the server holds the request, then moves time past the deadline; returns
   * the server's reply, still unanswered.
   */
  private CompletableFuture<byte[]> callPastDeadline(BallastClient<byte[], byte[]> client)
      throws InterruptedException {
    CompletableFuture<byte[]> f = client.call(new byte[] {1});
    CompletableFuture<byte[]> reply = held.poll(10, TimeUnit.SECONDS);
    assertThat(reply).as("request reached the server").isNotNull();
    now.addAndGet(150 * MS);
    Await.until(Duration.ofSeconds(10), () -> "deadline swept", f::isDone);
    assertThatThrownBy(() -> f.get(1, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(DeadlineExceededException.class);
    assertThat(reply).isNotDone();
    return reply;
  }

  private static EndpointStats only(BallastClient<byte[], byte[]> client) {
    assertThat(client.stats()).hasSize(1);
    return client.stats().get(0);
  }

  @Test
  void aLateAnswerCompletesTheNodeWithItsTrueLatency() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(Duration.ofSeconds(10))) {
      CompletableFuture<byte[]> reply = callPastDeadline(client);
      // The caller has its failure; the server still works on the request.
      EndpointStats s = only(client);
      assertThat(s.pending()).isEqualTo(1);
      assertThat(s.inFlight()).isEqualTo(1);
      // The caller-side failure is counted at once (outlier detection and metrics see it).
      assertThat(s.failures()).isEqualTo(1);
      // The estimate has not heard of this request yet: the 30 ms default, decaying.
      assertThat(s.rttEstimateNanos()).isBetween(29.0 * MS, 30.0 * MS);
      assertThat(client.lateAnswersAwaited()).isEqualTo(1);
      assertThat(client.inFlightCalls()).isZero();

      // The server answers 2 s after the call started.
      now.addAndGet(1850 * MS);
      reply.complete(new byte[] {1});
      Await.until(Duration.ofSeconds(10), () -> "late answer heard: " + client.stats(),
          () -> only(client).pending() == 0);
      s = only(client);
      assertThat(s.inFlight()).isZero();
      assertThat(s.failures()).isEqualTo(1);
      assertThat(s.successes()).isZero();
      assertThat(client.lateAnswersAwaited()).isZero();
      // Peak EWMA jumps to the late latency: 2 s, not the 150 ms at which the caller gave up.
      assertThat(s.rttEstimateNanos()).isCloseTo(2000.0 * MS, within(1.0));

      // The connection stays in use: the next call goes over it.
      CompletableFuture<byte[]> next = client.call(new byte[] {2});
      held.poll(10, TimeUnit.SECONDS).complete(new byte[] {2});
      assertThat(next.get(10, TimeUnit.SECONDS)).containsExactly(2);
      assertThat(only(client).connections()).isEqualTo(1);
      assertThat(server.connections()).isEqualTo(1);
    }
  }

  @Test
  void aServerThatNeverAnswersIsGivenUpAtTheLateAnswerWait() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(Duration.ofSeconds(1))) {
      callPastDeadline(client);
      now.addAndGet(500 * MS);
      // Still awaited: the wait ends 1 s after the deadline.
      assertThat(only(client).pending()).isEqualTo(1);
      assertThat(client.lateAnswersAwaited()).isEqualTo(1);

      now.addAndGet(600 * MS);
      Await.until(Duration.ofSeconds(10), () -> "wait ended: " + client.stats(),
          () -> only(client).pending() == 0);
      EndpointStats s = only(client);
      assertThat(s.inFlight()).isZero();
      assertThat(s.failures()).isEqualTo(1);
      assertThat(client.lateAnswersAwaited()).isZero();
      // Ended at the bound: 100 ms deadline + 1 s wait, swept at 1.25 s of fake time.
      assertThat(s.rttEstimateNanos()).isCloseTo(1250.0 * MS, within(1.0));
      // The connection that stalled is dropped (it had no other request).
      Await.until(Duration.ofSeconds(10), () -> "stalled connection closed",
          () -> only(client).connections() == 0 && server.connections() == 0);
    }
  }

  @Test
  void theConnectionClosingEndsTheWaitAtThatMoment() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(Duration.ofSeconds(10))) {
      callPastDeadline(client);
      now.addAndGet(350 * MS);
      server.close();
      Await.until(Duration.ofSeconds(10), () -> "closed connection heard: " + client.stats(),
          () -> only(client).pending() == 0);
      EndpointStats s = only(client);
      assertThat(s.inFlight()).isZero();
      assertThat(s.failures()).isEqualTo(1);
      assertThat(client.lateAnswersAwaited()).isZero();
      assertThat(s.rttEstimateNanos()).isCloseTo(500.0 * MS, within(1.0));
    }
  }

  @Test
  void closeEndsEveryAwaitedAnswer() throws Exception {
    BallastClient<byte[], byte[]> client = client(Duration.ofSeconds(10));
    callPastDeadline(client);
    callPastDeadline(client);
    assertThat(client.lateAnswersAwaited()).isEqualTo(2);
    assertThat(only(client).pending()).isEqualTo(2);
    client.close();
    EndpointStats s = only(client);
    assertThat(s.pending()).isZero();
    assertThat(s.inFlight()).isZero();
    assertThat(client.lateAnswersAwaited()).isZero();
    Await.until(Duration.ofSeconds(10), () -> "server saw the close",
        () -> server.connections() == 0);
  }

  @Test
  void aZeroWaitGivesUpAtTheDeadlineAsBefore() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(Duration.ZERO)) {
      callPastDeadline(client);
      EndpointStats s = only(client);
      assertThat(s.pending()).isZero();
      assertThat(s.inFlight()).isZero();
      assertThat(s.failures()).isEqualTo(1);
      assertThat(client.lateAnswersAwaited()).isZero();
      assertThat(s.rttEstimateNanos()).isCloseTo(150.0 * MS, within(1.0));
    }
  }

  @Test
  void lateAnswerWaitMustNotBeNegative() {
    assertThatThrownBy(() -> BallastClient.framed().lateAnswerWait(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lateAnswerWait: PT-0.001S (expected: >= 0)");
  }
}

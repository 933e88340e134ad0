package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hedging on a deterministic setup: two framed servers hold every request until the test
 * answers it, and time is a fake ticker that the test moves (the client's hedge timers, deadlines
 * and balancer all read it), so nothing waits for real time but the sweeps that notice it.
 */
class HedgingTest {

  private static final long MS = 1_000_000L;

  /** A request a server holds: which server, and its answer to give. */
  private record Held(int server, CompletableFuture<byte[]> reply) {}

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final BlockingQueue<Held> held = new LinkedBlockingQueue<>();
  private final List<FramedServer> servers = new ArrayList<>();
  private final List<String> attemptEnds = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void start() {
    for (int i = 0; i < 2; i++) {
      int server = i;
      servers.add(FramedServer.start(req -> {
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        held.add(new Held(server, reply));
        return reply;
      }));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  private BallastClient<byte[], byte[]> client(Hedging hedging) {
    return client(hedging, Algorithm.P2C_PEAK_EWMA);
  }

  private BallastClient<byte[], byte[]> client(Hedging hedging, Algorithm algorithm) {
    return BallastClient.framed()
        .endpoints(servers.stream().map(FramedServer::endpoint).toList())
        .balancer(algorithm)
        .balancerConfig(BalancerConfig.builder().ticker(now::get)
            .random(new SplittableRandom(3)).build())
        .ticker(now::get)
        .timeout(Duration.ofSeconds(5))
        .hedging(hedging)
        .attemptFilter((req, ctx, next) -> next.call(req).whenComplete((r, e) ->
            attemptEnds.add(ctx.number() + (ctx.isHedge() ? " (hedge)" : "") + " on server "
                + servers.indexOf(server(ctx.endpoint())) + ": "
                + (e == null ? "answer " + r[0] : e.getClass().getSimpleName()))))
        .seed(7)
        .build();
  }

  private FramedServer server(Endpoint e) {
    return servers.stream().filter(s -> s.endpoint().equals(e)).findFirst().orElseThrow();
  }

  private Held nextHeld() throws InterruptedException {
    Held h = held.poll(10, TimeUnit.SECONDS);
    assertThat(h).as("a request reached a server").isNotNull();
    return h;
  }

  private static EndpointStats stats(BallastClient<?, ?> client, FramedServer s) {
    return client.stats().stream().filter(x -> x.address().equals(s.endpoint().address()))
        .findFirst().orElseThrow();
  }

  @Test
  void aHedgeGoesElsewhereTheFirstAnswerWinsAndTheLoserIsCancelledButStillHeard()
      throws Exception {
    try (BallastClient<byte[], byte[]> client =
        client(Hedging.after(Duration.ofMillis(50)).withBudget(1))) {
      CompletableFuture<byte[]> call = client.call(new byte[] {1}, CallOptions.idempotent());
      Held first = nextHeld();
      now.addAndGet(60 * MS);
      Held hedge = nextHeld();
      assertThat(hedge.server()).as("the hedge went to the other endpoint")
          .isEqualTo(1 - first.server());
      // The hedge answers first and wins; the first attempt is cancelled.
      now.addAndGet(10 * MS);
      hedge.reply().complete(new byte[] {2});
      assertThat(call.get(10, TimeUnit.SECONDS)).containsExactly(2);
      assertThat(client.callStats()).isEqualTo(new CallStats(1, 0, 1, 1));
      Await.until(Duration.ofSeconds(10), attemptEnds::toString, () -> attemptEnds.size() == 2);
      assertThat(attemptEnds).containsExactlyInAnyOrder(
          "2 (hedge) on server " + hedge.server() + ": answer 2",
          "1 on server " + first.server() + ": AttemptCancelledException");
      // The loser's request still runs on its server: its node waits for the late answer.
      FramedServer loser = servers.get(first.server());
      assertThat(client.lateAnswersAwaited()).isEqualTo(1);
      assertThat(stats(client, loser).pending()).isEqualTo(1);
      assertThat(stats(client, loser).failures()).as("a loser is no failure").isZero();
      // Its answer comes 500 ms after it was sent: the balancer hears exactly that.
      now.addAndGet(430 * MS);
      first.reply().complete(new byte[] {1});
      Await.until(Duration.ofSeconds(10), () -> client.stats().toString(),
          () -> stats(client, loser).pending() == 0);
      assertThat(client.lateAnswersAwaited()).isZero();
      assertThat(stats(client, loser).rttEstimateNanos()).isCloseTo(500.0 * MS, within(1.0));
      assertThat(stats(client, loser).inFlight()).isZero();
    }
  }

  @Test
  void theBudgetCapsHedges() throws Exception {
    try (BallastClient<byte[], byte[]> client =
        client(Hedging.after(Duration.ofMillis(50)).withBudget(0.1), Algorithm.ROUND_ROBIN)) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      List<Held> requests = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        calls.add(client.call(new byte[] {(byte) i}, CallOptions.idempotent()));
        requests.add(nextHeld());
      }
      now.addAndGet(60 * MS);
      // 20 calls at 10% buy exactly 2 hedges, though all 20 waited past the delay.
      requests.add(nextHeld());
      requests.add(nextHeld());
      for (Held h : requests) {
        h.reply().complete(new byte[] {7});
      }
      for (CompletableFuture<byte[]> c : calls) {
        assertThat(c.get(10, TimeUnit.SECONDS)).containsExactly(7);
      }
      assertThat(held).isEmpty();
      assertThat(client.callStats().hedges()).isEqualTo(2);
      assertThat(servers.stream().mapToLong(FramedServer::requests).sum()).isEqualTo(22);
    }
  }

  @Test
  void onlyIdempotentCallsAreHedged() throws Exception {
    try (BallastClient<byte[], byte[]> client =
        client(Hedging.after(Duration.ofMillis(50)).withBudget(1), Algorithm.ROUND_ROBIN)) {
      CompletableFuture<byte[]> plain = client.call(new byte[] {1});
      Held plainHeld = nextHeld();
      CompletableFuture<byte[]> idempotent = client.call(new byte[] {2}, CallOptions.idempotent());
      Held first = nextHeld();
      now.addAndGet(60 * MS);
      // The sweep that sends the idempotent call's hedge sees both calls past the delay.
      Held hedge = nextHeld();
      for (Held h : List.of(plainHeld, first, hedge)) {
        h.reply().complete(new byte[] {9});
      }
      plain.get(10, TimeUnit.SECONDS);
      idempotent.get(10, TimeUnit.SECONDS);
      assertThat(held).isEmpty();
      assertThat(client.callStats().hedges()).isEqualTo(1);
      assertThat(servers.stream().mapToLong(FramedServer::requests).sum()).isEqualTo(3);
    }
  }

  @Test
  void aPercentileDelayFollowsTheClientsOwnLatency() throws Exception {
    try (BallastClient<byte[], byte[]> client =
        client(Hedging.atPercentile(0.9).withBudget(1))) {
      assertThat(client.stack().hedgeDelayNanos()).isEqualTo(-1);
      // 100 calls of 10 ms each (not hedged: no percentile yet).
      for (int i = 0; i < 100; i++) {
        CompletableFuture<byte[]> c = client.call(new byte[] {1}, CallOptions.idempotent());
        Held h = nextHeld();
        now.addAndGet(10 * MS);
        h.reply().complete(new byte[] {1});
        c.get(10, TimeUnit.SECONDS);
      }
      now.addAndGet(100 * MS);
      // p90 of 10 ms, rounded up to its bucket's top: 10.239 ms
      Await.until(Duration.ofSeconds(10), () -> "percentile computed",
          () -> client.stack().hedgeDelayNanos() > 0);
      assertThat(client.stack().hedgeDelayNanos()).isEqualTo(10_239_000L);
      CompletableFuture<byte[]> c = client.call(new byte[] {2}, CallOptions.idempotent());
      Held first = nextHeld();
      now.addAndGet(10_300_000L);
      Held hedge = nextHeld();
      assertThat(hedge.server()).isEqualTo(1 - first.server());
      first.reply().complete(new byte[] {3});
      assertThat(c.get(10, TimeUnit.SECONDS)).containsExactly(3);
      hedge.reply().complete(new byte[] {4});
      assertThat(client.callStats()).isEqualTo(new CallStats(101, 0, 1, 0));
    }
  }
}

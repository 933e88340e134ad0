package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.ManualSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BallastClient#endpointsWhen}: completes at once or on the update that satisfies the
 * condition (from code or a source), stays pending otherwise, fails at close, and forgets the
 * futures their callers gave up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndpointsWhenTest {

  private final FramedServer a = FramedServer.start(FramedServer.echo());
  private final FramedServer b = FramedServer.start(FramedServer.echo());
  private final FramedServer c = FramedServer.start(FramedServer.echo());

  @AfterEach
  void stop() {
    a.close();
    b.close();
    c.close();
  }

  private BallastClient<byte[], byte[]> client(Endpoint... endpoints) {
    return BallastClient.framed().endpoints(List.of(endpoints)).build();
  }

  @Test
  void aConditionAlreadyMetCompletesAtOnce() {
    try (BallastClient<byte[], byte[]> client = client(a.endpoint(), b.endpoint())) {
      CompletableFuture<List<Endpoint>> f = client.endpointsWhen(es -> es.size() == 2);
      assertThat(f).isCompletedWithValue(List.of(a.endpoint(), b.endpoint()));
      assertThat(client.stack().endpointWaiters()).isZero();
    }
  }

  @Test
  void theUpdateThatMeetsTheConditionCompletesItWithTheNewEndpoints() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(a.endpoint())) {
      CompletableFuture<List<Endpoint>> f =
          client.endpointsWhen(es -> es.contains(c.endpoint()));
      client.updateEndpoints(List.of(a.endpoint(), b.endpoint()));
      assertThat(f).as("after an update without c").isNotDone();
      AtomicReference<Thread> completedOn = new AtomicReference<>();
      CompletableFuture<Void> stage = f.thenRun(() -> completedOn.set(Thread.currentThread()));
      // the update runs on a thread of its own, standing for a feed thread all clients share
      Thread updater = new Thread(
          () -> client.updateEndpoints(List.of(b.endpoint(), c.endpoint())), "updater");
      updater.start();
      updater.join(10_000);
      assertThat(updater.isAlive()).as("the update returned").isFalse();
      // settled by the update itself, which left it; completed on a pool thread, so that a
      // caller's stage cannot hold up the updating thread. (A thread waiting in get() may run
      // the stage too, as CompletableFuture lets waiters help; only the updater must not.)
      assertThat(client.stack().endpointWaiters()).isZero();
      assertThat(f).succeedsWithin(Duration.ofSeconds(10))
          .isEqualTo(List.of(b.endpoint(), c.endpoint()));
      assertThat(stage).succeedsWithin(Duration.ofSeconds(10));
      assertThat(completedOn.get()).isNotNull().isNotSameAs(updater);
      assertThat(client.call(new byte[] {7}).get(10, TimeUnit.SECONDS)).containsExactly(7);
    }
  }

  @Test
  void aSourcesPushCompletesIt() throws Exception {
    ManualSource source = new ManualSource("test");
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().source(source).build()) {
      CompletableFuture<List<Endpoint>> f = client.endpointsWhen(es -> es.size() == 2);
      assertThat(f).isNotDone();
      source.listener().onEntries(
          Map.of("a", a.endpoint().toString(), "b", b.endpoint().toString()));
      assertThat(f.get(10, TimeUnit.SECONDS))
          .containsExactlyInAnyOrder(a.endpoint(), b.endpoint());
    }
  }

  @Test
  void aConditionNeverMetStaysPendingThenCloseFailsIt() {
    BallastClient<byte[], byte[]> client = client(a.endpoint());
    CompletableFuture<List<Endpoint>> f = client.endpointsWhen(List::isEmpty);
    client.updateEndpoints(List.of(b.endpoint()));
    client.updateEndpoints(List.of(b.endpoint(), c.endpoint()));
    assertThat(f).isNotDone();
    assertThat(client.stack().endpointWaiters()).isEqualTo(1);

    client.close();
    assertThat(f).as("failed by close itself").isCompletedExceptionally();
    assertThatThrownBy(f::join).cause().isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed before its endpoints satisfied the condition");
    assertThat(client.stack().endpointWaiters()).isZero();
    // and one asked for after close fails at once, even if its condition holds
    assertThat(client.endpointsWhen(es -> true)).isCompletedExceptionally();
  }

  @Test
  void futuresTheirCallersGaveUpAreDroppedAtTheNextUpdateOrRegistration() {
    try (BallastClient<byte[], byte[]> client = client(a.endpoint())) {
      CompletableFuture<List<Endpoint>> timedOut =
          client.endpointsWhen(List::isEmpty).orTimeout(1, TimeUnit.MILLISECONDS);
      assertThatThrownBy(timedOut::join).isInstanceOf(CompletionException.class)
          .cause().isInstanceOf(TimeoutException.class);
      // it leaves as it times out (on the timer's thread), at the latest at the next update
      client.updateEndpoints(List.of(b.endpoint()));
      assertThat(client.stack().endpointWaiters()).isZero();

      CompletableFuture<List<Endpoint>> cancelled = client.endpointsWhen(List::isEmpty);
      cancelled.cancel(false);
      assertThatThrownBy(cancelled::join).isInstanceOf(CancellationException.class);
      CompletableFuture<List<Endpoint>> pending = client.endpointsWhen(List::isEmpty);
      assertThat(client.stack().endpointWaiters()).as("the cancelled one left").isEqualTo(1);
      assertThat(pending).isNotDone();
    }
  }

  @Test
  void aConditionThatThrowsFailsItsFutureOnlyAndANullOneIsRefused() throws Exception {
    try (BallastClient<byte[], byte[]> client = client(a.endpoint())) {
      CompletableFuture<List<Endpoint>> other = client.endpointsWhen(es -> es.size() == 2);
      CompletableFuture<List<Endpoint>> throwing = client.endpointsWhen(es -> {
        if (es.size() == 2) {
          throw new IllegalArgumentException("bad condition");
        }
        return false;
      });
      client.updateEndpoints(List.of(a.endpoint(), b.endpoint()));
      assertThat(throwing).as("failed by the update").failsWithin(Duration.ofSeconds(10))
          .withThrowableOfType(ExecutionException.class)
          .havingCause().isInstanceOf(IllegalArgumentException.class).withMessage("bad condition");
      assertThat(other).succeedsWithin(Duration.ofSeconds(10))
          .isEqualTo(List.of(a.endpoint(), b.endpoint()));
      assertThat(client.endpoints()).containsExactly(a.endpoint(), b.endpoint());
      assertThatThrownBy(() -> client.endpointsWhen(null))
          .isInstanceOf(NullPointerException.class).hasMessage("condition");
    }
  }
}

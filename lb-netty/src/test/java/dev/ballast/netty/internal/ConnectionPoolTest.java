package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.AcquireTimeoutException;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.PoolClosedException;
import dev.ballast.netty.error.PoolOverflowException;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.RefusedPort;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pool against a real server; time for idle and lifetime checks is a fake ticker. */
class ConnectionPoolTest {

  private FramedServer server;
  private ConnectionPool<byte[], byte[]> pool;
  private long now = 1_000_000_000L;

  @BeforeEach
  void start() {
    server = FramedServer.start(FramedServer.echo());
  }

  @AfterEach
  void stop() throws Exception {
    if (pool != null) {
      pool.close().get(10, TimeUnit.SECONDS);
    }
    server.close();
  }

  private ConnectionPool<byte[], byte[]> pool(PoolConfig config, int inFlightCap) {
    return pool(server.endpoint(), config, inFlightCap);
  }

  private ConnectionPool<byte[], byte[]> pool(Endpoint endpoint, PoolConfig config,
      int inFlightCap) {
    pool = new ConnectionPool<>(endpoint, config,
        new FramedProtocol(FrameDecoder.DEFAULT_MAX_FRAME_SIZE, inFlightCap, null),
        new LoopSpread(Transport.sharedGroup()), () -> now, new SplittableRandom(1));
    return pool;
  }

  /** The pool's acquire as a future, waiting at most {@code timeoutNanos} on the fake ticker. */
  private CompletableFuture<PooledConnection<byte[], byte[]>> acquire(
      ConnectionPool<byte[], byte[]> p, long timeoutNanos, int attempt) {
    CompletableFuture<PooledConnection<byte[], byte[]>> f = new CompletableFuture<>();
    long deadline = timeoutNanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + timeoutNanos;
    PooledConnection<byte[], byte[]> c = p.acquireBefore(deadline, attempt, (conn, e) -> {
      if (e != null) {
        f.completeExceptionally(e);
      } else {
        f.complete(conn);
      }
    });
    if (c != null) {
      f.complete(c);
    }
    return f;
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  @Test
  void overflowAndAcquireTimeoutAreTyped() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder().maxConnections(1)
        .maxPendingAcquires(1).build(), 1);
    PooledConnection<byte[], byte[]> c1 = get(acquire(p, Long.MAX_VALUE, 1));
    CompletableFuture<PooledConnection<byte[], byte[]>> waiting =
        acquire(p, TimeUnit.MILLISECONDS.toNanos(100), 2);
    assertThat(p.pendingAcquires()).isEqualTo(1);
    Throwable overflow = catchThrowable(() -> get(acquire(p, Long.MAX_VALUE, 3)));
    assertThat(overflow).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(PoolOverflowException.class)
        .hasMessageContaining(server.endpoint().address()).hasMessageContaining("attempt 3");
    Throwable timeout = catchThrowable(() -> get(waiting));
    assertThat(timeout).cause().isInstanceOf(AcquireTimeoutException.class)
        .hasMessageContaining("within 100 ms");
    assertThat(((BallastException) timeout.getCause()).reachedServer()).isFalse();
    assertThat(p.pendingAcquires()).isZero();
    p.release(c1, true);
    assertThat(p.inFlight()).isZero();
  }

  @Test
  void releaseHandsTheConnectionToAWaiter() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder().maxConnections(1).build(), 1);
    PooledConnection<byte[], byte[]> c1 = get(acquire(p, Long.MAX_VALUE, 1));
    CompletableFuture<PooledConnection<byte[], byte[]>> waiting = acquire(p, Long.MAX_VALUE, 1);
    assertThat(waiting).isNotDone();
    p.release(c1, true);
    assertThat(get(waiting)).isSameAs(c1);
    assertThat(p.inFlight()).isEqualTo(1);
    p.release(c1, true);
    assertThat(p.inFlight()).isZero();
    assertThat(p.connections()).isEqualTo(1);
  }

  @Test
  void multiplexesUpToTheCapThenOpensAnother() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder().maxConnections(2).build(), 3);
    PooledConnection<byte[], byte[]> a = get(acquire(p, Long.MAX_VALUE, 1));
    assertThat(get(acquire(p, Long.MAX_VALUE, 1))).isSameAs(a);
    assertThat(get(acquire(p, Long.MAX_VALUE, 1))).isSameAs(a);
    PooledConnection<byte[], byte[]> b = get(acquire(p, Long.MAX_VALUE, 1));
    assertThat(b).isNotSameAs(a);
    assertThat(p.connections()).isEqualTo(2);
    assertThat(p.inFlight()).isEqualTo(4);
    for (int i = 0; i < 3; i++) {
      p.release(a, true);
    }
    p.release(b, true);
    assertThat(p.inFlight()).isZero();
  }

  @Test
  void unhealthyConnectionIsDroppedOnRelease() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.defaults(), 8);
    PooledConnection<byte[], byte[]> c = get(acquire(p, Long.MAX_VALUE, 1));
    p.release(c, false);
    assertThat(p.connections()).isZero();
    Await.until(Duration.ofSeconds(5), () -> "server connections " + server.connections(),
        () -> server.connections() == 0);
    assertThat(get(acquire(p, Long.MAX_VALUE, 1))).isNotSameAs(c);
  }

  @Test
  void idleConnectionsAreEvictedDownToTheMinimum() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder().idleTimeout(Duration.ofSeconds(1))
        .minConnections(1).maxConnections(4).build(), 1);
    Await.until(Duration.ofSeconds(5), () -> "min connection", () -> p.connections() == 1);
    PooledConnection<byte[], byte[]> a = get(acquire(p, Long.MAX_VALUE, 1));
    PooledConnection<byte[], byte[]> b = get(acquire(p, Long.MAX_VALUE, 1));
    PooledConnection<byte[], byte[]> c = get(acquire(p, Long.MAX_VALUE, 1));
    assertThat(p.connections()).isEqualTo(3);
    p.release(a, true);
    p.release(b, true);
    p.release(c, true);
    p.maintain();
    assertThat(p.connections()).isEqualTo(3); // not idle long enough yet
    now += Duration.ofSeconds(2).toNanos();
    p.maintain();
    assertThat(p.connections()).isEqualTo(1);
    assertThat(p.idleConnections()).isEqualTo(1);
    Await.until(Duration.ofSeconds(5), () -> "server connections " + server.connections(),
        () -> server.connections() == 1);
  }

  @Test
  void connectionsAreReplacedAfterTheirLifetime() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder()
        .maxLifetime(Duration.ofSeconds(10)).lifetimeJitter(0.5).build(), 4);
    PooledConnection<byte[], byte[]> first = get(acquire(p, Long.MAX_VALUE, 1));
    p.release(first, true);
    now += Duration.ofSeconds(4).toNanos(); // under the lowest jittered lifetime (5 s)
    assertThat(get(acquire(p, Long.MAX_VALUE, 1))).isSameAs(first);
    p.release(first, true);
    now += Duration.ofSeconds(7).toNanos(); // past the longest (10 s)
    PooledConnection<byte[], byte[]> second = get(acquire(p, Long.MAX_VALUE, 1));
    assertThat(second).isNotSameAs(first);
    p.maintain();
    assertThat(first.channel.closeFuture().await(5, TimeUnit.SECONDS)).isTrue();
    p.release(second, true);
  }

  @Test
  void connectRefusedFailsWaitersWithTheEndpoint() throws Exception {
    try (RefusedPort port = new RefusedPort()) {
      ConnectionPool<byte[], byte[]> p = pool(port.endpoint(), PoolConfig.defaults(), 8);
      Throwable t = catchThrowable(() -> get(acquire(p, Long.MAX_VALUE, 2)));
      assertThat(t).cause().isInstanceOf(ConnectFailedException.class)
          .hasMessageContaining(port.endpoint().address()).hasMessageContaining("attempt 2");
      assertThat(p.inFlight()).isZero();
      assertThat(p.pendingAcquires()).isZero();
    }
  }

  @Test
  void closeFailsWaitersAndLaterAcquires() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder().maxConnections(1).build(), 1);
    PooledConnection<byte[], byte[]> c = get(acquire(p, Long.MAX_VALUE, 1));
    CompletableFuture<PooledConnection<byte[], byte[]>> waiting = acquire(p, Long.MAX_VALUE, 1);
    p.close().get(10, TimeUnit.SECONDS);
    assertThat(catchThrowable(() -> get(waiting))).cause()
        .isInstanceOf(PoolClosedException.class);
    assertThat(catchThrowable(() -> get(acquire(p, Long.MAX_VALUE, 1)))).cause()
        .isInstanceOf(PoolClosedException.class);
    assertThat(c.channel.isOpen()).isFalse();
    p.release(c, true);
    assertThat(p.inFlight()).isZero();
  }

  @Test
  void acquireBeforeReturnsAFreeConnectionAtOnceElseCallsBack() throws Exception {
    ConnectionPool<byte[], byte[]> p = pool(PoolConfig.builder().maxConnections(1).build(), 1);
    PooledConnection<byte[], byte[]> c = get(acquire(p, Long.MAX_VALUE, 1));
    p.release(c, true);
    CompletableFuture<Object> never = new CompletableFuture<>();
    // free: returned, and the callback is never called
    assertThat(p.acquireBefore(now + 1_000, 1, (conn, e) -> never.complete(conn))).isSameAs(c);
    // busy: null now, the connection later
    CompletableFuture<PooledConnection<byte[], byte[]>> later = new CompletableFuture<>();
    assertThat(p.acquireBefore(Long.MAX_VALUE, 1, (conn, e) -> later.complete(conn))).isNull();
    assertThat(later).isNotDone();
    assertThat(p.pendingAcquires()).isEqualTo(1);
    p.release(c, true);
    assertThat(get(later)).isSameAs(c);
    // busy, deadline already passed on the pool's ticker: the acquire times out at once
    CompletableFuture<Throwable> late = new CompletableFuture<>();
    assertThat(p.acquireBefore(now - 1, 2, (conn, e) -> late.complete(e))).isNull();
    assertThat(get(late)).isInstanceOf(AcquireTimeoutException.class)
        .hasMessageContaining("attempt 2");
    p.release(c, true);
    assertThat(never).isNotDone();
    // closed: the callback hears it before acquireBefore returns
    p.close().get(10, TimeUnit.SECONDS);
    CompletableFuture<Throwable> closed = new CompletableFuture<>();
    assertThat(p.acquireBefore(Long.MAX_VALUE, 3, (conn, e) -> closed.complete(e))).isNull();
    assertThat(closed.getNow(null)).isInstanceOf(PoolClosedException.class);
    assertThat(p.inFlight()).isZero();
  }
}

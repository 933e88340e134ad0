package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.pool.PoolConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call made on one of the client's event loops gets a connection on that loop, opened there
 * or chosen, while that loop is not the busiest; a real server, a pool of one call per
 * connection (as HTTP/1.1) over a group of two loops.
 */
class LoopAffinityTest {

  private EventLoopGroup group;
  private FramedServer server;
  private LoopSpread loops;
  private ConnectionPool<byte[], byte[]> pool;
  private EventLoop first;
  private EventLoop second;

  @BeforeEach
  void start() {
    group = Transport.newGroup(2, "affinity-test");
    List<EventLoop> list = new ArrayList<>();
    for (EventExecutor e : group) {
      list.add((EventLoop) e);
    }
    first = list.get(0);
    second = list.get(1);
    server = FramedServer.start(FramedServer.echo());
    loops = new LoopSpread(group);
    pool = new ConnectionPool<>(server.endpoint(), PoolConfig.builder().build(),
        new FramedProtocol(FrameDecoder.DEFAULT_MAX_FRAME_SIZE, 1, null), loops,
        System::nanoTime, new SplittableRandom(1));
  }

  @AfterEach
  void stop() throws Exception {
    pool.close().get(10, TimeUnit.SECONDS);
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void aCallOnALoopGetsAConnectionOnThatLoopUnlessThatLoopHoldsMore() throws Exception {
    // the first connection of a pool opened for a call on the second loop: on the second loop
    // (in turn, as before, it went on the first)
    PooledConnection<byte[], byte[]> a = acquireOn(second);
    assertThat(a.channel.eventLoop()).as("loop of a connection opened from the second")
        .isSameAs(second);
    // another call on the second loop while the first holds its connection: the second loop
    // holds more (one call to none), so the connection it opens goes on the first loop
    PooledConnection<byte[], byte[]> b = acquireOn(second);
    assertThat(b.channel.eventLoop()).as("loop of a connection opened from the busier loop")
        .isSameAs(first);
    pool.release(a, true);
    pool.release(b, true);
    // both free: a call takes the one on its own loop, whichever the pool lists first
    for (int i = 0; i < 4; i++) {
      for (EventLoop on : List.of(first, second)) {
        PooledConnection<byte[], byte[]> c = acquireOn(on);
        assertThat(c.channel.eventLoop()).as("call %d on %s", i, on).isSameAs(on);
        pool.release(c, true);
      }
    }
    assertThat(pool.connections()).isEqualTo(2);
  }

  @Test
  void aLoopsLoadCountsItsCallsInFlightAndEndsAtZero() throws Exception {
    PooledConnection<byte[], byte[]> a = acquireOn(first);
    PooledConnection<byte[], byte[]> b = acquireOn(first); // the first holds more: the second
    PooledConnection<byte[], byte[]> c = acquireOn(second); // one each: its own loop
    assertThat(List.of(loops.load(0), loops.load(1))).containsExactly(1, 2);
    assertThat(List.of(a.channel.eventLoop(), b.channel.eventLoop(), c.channel.eventLoop()))
        .containsExactly(first, second, second);
    pool.release(a, true);
    pool.release(b, false); // broken: closed, its permit still returned
    pool.release(c, true);
    assertThat(List.of(loops.load(0), loops.load(1))).containsExactly(0, 0);
  }

  /** Acquires from a task on {@code loop}; waits for the connection on the test's thread. */
  private PooledConnection<byte[], byte[]> acquireOn(EventLoop loop) throws Exception {
    CompletableFuture<PooledConnection<byte[], byte[]>> f = new CompletableFuture<>();
    loop.execute(() -> {
      PooledConnection<byte[], byte[]> c = pool.acquireBefore(Long.MAX_VALUE, 1, (conn, e) -> {
        if (e != null) {
          f.completeExceptionally(e);
        } else {
          f.complete(conn);
        }
      });
      if (c != null) {
        f.complete(c);
      }
    });
    return f.get(10, TimeUnit.SECONDS);
  }
}

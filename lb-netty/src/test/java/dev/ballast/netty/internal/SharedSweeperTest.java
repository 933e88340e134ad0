package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against a real event loop group of its own; waits on latches, asserts no timing. */
class SharedSweeperTest {

  private static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);

  private EventLoopGroup group;
  private EventExecutor loop;

  @BeforeEach
  void start() {
    group = Transport.newGroup(1, "sweeper-test");
    loop = group.next();
  }

  @AfterEach
  void stop() throws Exception {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
  }

  @Test
  void oneTimerRunsEverySweepOfALoopUntilTheLastIsClosed() throws Exception {
    CountDownLatch a = new CountDownLatch(3);
    CountDownLatch b = new CountDownLatch(3);
    SharedSweeper.Registration ra = SharedSweeper.register(loop, TICK, a::countDown);
    SharedSweeper.Registration rb = SharedSweeper.register(loop, TICK, b::countDown);
    assertThat(SharedSweeper.sweepsOn(loop, TICK)).isEqualTo(2);
    assertThat(a.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.await(10, TimeUnit.SECONDS)).isTrue();
    ra.close();
    ra.close(); // closing again removes nothing more
    assertThat(SharedSweeper.sweepsOn(loop, TICK)).isEqualTo(1);
    // another tick is another timer
    SharedSweeper.Registration other = SharedSweeper.register(loop, 2 * TICK, () -> { });
    assertThat(SharedSweeper.sweepsOn(loop, 2 * TICK)).isEqualTo(1);
    other.close();
    rb.close();
    assertThat(SharedSweeper.sweepsOn(loop, TICK)).isZero();
    assertThat(SharedSweeper.sweepsOn(loop, 2 * TICK)).isZero();
    // a later registration starts a timer again
    CountDownLatch c = new CountDownLatch(2);
    try (SharedSweeper.Registration rc = SharedSweeper.register(loop, TICK, c::countDown)) {
      assertThat(c.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(SharedSweeper.sweepsOn(loop, TICK)).isZero();
  }

  @Test
  void aThrowingSweepStopsNeitherTheOthersNorItsOwnTurns() throws Exception {
    CountDownLatch thrown = new CountDownLatch(4);
    CountDownLatch ran = new CountDownLatch(4);
    try (SharedSweeper.Registration bad = SharedSweeper.register(loop, TICK, () -> {
      thrown.countDown();
      // an exception, then an error: neither may end the timer the other sweep shares
      if (thrown.getCount() % 2 == 0) {
        throw new IllegalStateException("planted");
      }
      throw new StackOverflowError("planted");
    });
        SharedSweeper.Registration good = SharedSweeper.register(loop, TICK, ran::countDown)) {
      assertThat(thrown.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void sweepsLeftOpenOnALoopThatShutDownAreForgotten() throws Exception {
    SharedSweeper.Registration open = SharedSweeper.register(loop, TICK, () -> { });
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    EventLoopGroup other = Transport.newGroup(1, "sweeper-test-2");
    try (SharedSweeper.Registration r = SharedSweeper.register(other.next(), TICK, () -> { })) {
      assertThat(SharedSweeper.sweepsOn(loop, TICK)).isZero();
      assertThat(SharedSweeper.sweepsOn(other.next(), TICK)).isEqualTo(1);
    } finally {
      open.close();
      other.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void rejectsABadTickAndAShutDownLoop() throws Exception {
    assertThatThrownBy(() -> SharedSweeper.register(loop, 0, () -> { }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tick: 0 ns");
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> SharedSweeper.register(loop, TICK, () -> { }))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(SharedSweeper.sweepsOn(loop, TICK)).isZero();
  }
}

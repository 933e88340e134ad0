package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
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

  @BeforeEach
  void start() {
    group = Transport.newGroup(1, "sweeper-test");
  }

  @AfterEach
  void stop() throws Exception {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
  }

  @Test
  void oneTimerRunsEverySweepOfAGroupUntilTheLastIsClosed() throws Exception {
    CountDownLatch a = new CountDownLatch(3);
    CountDownLatch b = new CountDownLatch(3);
    SharedSweeper.Registration ra = SharedSweeper.register(group, TICK, a::countDown);
    SharedSweeper.Registration rb = SharedSweeper.register(group, TICK, b::countDown);
    assertThat(SharedSweeper.sweepsOn(group, TICK)).isEqualTo(2);
    assertThat(a.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.await(10, TimeUnit.SECONDS)).isTrue();
    ra.close();
    ra.close(); // closing again removes nothing more
    assertThat(SharedSweeper.sweepsOn(group, TICK)).isEqualTo(1);
    // another tick is another timer
    SharedSweeper.Registration other = SharedSweeper.register(group, 2 * TICK, () -> { });
    assertThat(SharedSweeper.sweepsOn(group, 2 * TICK)).isEqualTo(1);
    other.close();
    rb.close();
    assertThat(SharedSweeper.sweepsOn(group, TICK)).isZero();
    assertThat(SharedSweeper.sweepsOn(group, 2 * TICK)).isZero();
    // a later registration starts a timer again
    CountDownLatch c = new CountDownLatch(2);
    try (SharedSweeper.Registration rc = SharedSweeper.register(group, TICK, c::countDown)) {
      assertThat(c.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(SharedSweeper.sweepsOn(group, TICK)).isZero();
  }

  @Test
  void aThrowingSweepStopsNeitherTheOthersNorItsOwnTurns() throws Exception {
    CountDownLatch thrown = new CountDownLatch(3);
    CountDownLatch ran = new CountDownLatch(3);
    try (SharedSweeper.Registration bad = SharedSweeper.register(group, TICK, () -> {
      thrown.countDown();
      throw new IllegalStateException("planted");
    });
        SharedSweeper.Registration good = SharedSweeper.register(group, TICK, ran::countDown)) {
      assertThat(thrown.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void rejectsABadTickAndAShutDownGroup() throws Exception {
    assertThatThrownBy(() -> SharedSweeper.register(group, 0, () -> { }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tick: 0 ns");
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> SharedSweeper.register(group, TICK, () -> { }))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(SharedSweeper.sweepsOn(group, TICK)).isZero();
  }
}

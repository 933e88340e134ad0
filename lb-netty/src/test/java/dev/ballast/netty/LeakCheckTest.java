package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.testing.LeakCheckExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The leak check itself: a buffer dropped without release is reported. */
class LeakCheckTest {

  @Test
  void droppedBufferIsReported() {
    leakOne();
    assertThat(LeakCheckExtension.collectLeaks())
        .as("the leak of an unreleased buffer").isNotEmpty()
        .anySatisfy(l -> assertThat(l).contains("LEAK"));
    assertThat(LeakCheckExtension.collectLeaks()).isEmpty();
  }

  private static void leakOne() {
    ByteBuf b = ByteBufAllocator.DEFAULT.buffer(16);
    b.writeLong(42);
    // not released on purpose
  }
}

package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.testing.LeakCheckExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak check itself: a buffer dropped without release is reported. */
class LeakCheckTest {

  @Test
  void droppedBufferIsReported() {
    leakOne();
    // The collector decides when the buffer goes; a few rounds give a busy machine its time.
    List<String> leaks = LeakCheckExtension.collectLeaks();
    for (int i = 0; i < 10 && leaks.isEmpty(); i++) {
      leaks = LeakCheckExtension.collectLeaks();
    }
    assertThat(leaks)
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

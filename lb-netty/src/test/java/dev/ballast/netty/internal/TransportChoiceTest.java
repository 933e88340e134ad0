package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The values of the property that chooses the transport. */
class TransportChoiceTest {

  @Test
  void nioIsAlwaysHonouredAndAutoFollowsTheLibrary() {
    assertThat(Transport.choose("nio")).isFalse();
    assertThat(Transport.choose(" NIO ")).isFalse();
    assertThat(Transport.choose("auto")).isEqualTo(Transport.choose(""));
  }

  @Test
  void anUnknownValueIsATypedErrorNamingIt() {
    assertThatThrownBy(() -> Transport.choose("kqueue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ballast.netty.transport: 'kqueue' (expected: auto, epoll or nio)");
  }
}

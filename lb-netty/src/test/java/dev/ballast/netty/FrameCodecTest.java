package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameEncoder;
import dev.ballast.netty.framed.FrameTooLargeException;
import dev.ballast.netty.framed.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

  @Test
  void roundTripsFramesSplitAcrossReads() {
    EmbeddedChannel enc = new EmbeddedChannel(new FrameEncoder());
    enc.writeOutbound(new Frame(Frame.REQUEST, 7, "hello".getBytes(StandardCharsets.UTF_8)));
    enc.writeOutbound(new Frame(Frame.RESPONSE, 8, new byte[0]));
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b; (b = enc.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    assertThat(all.readableBytes()).isEqualTo(4 + 9 + 5 + 4 + 9);
    EmbeddedChannel dec = new EmbeddedChannel(new FrameDecoder());
    // one byte at a time: the decoder must wait for whole frames
    while (all.isReadable()) {
      dec.writeInbound(all.readRetainedSlice(1));
    }
    all.release();
    Frame a = dec.readInbound();
    Frame b = dec.readInbound();
    assertThat(a.type()).isEqualTo(Frame.REQUEST);
    assertThat(a.id()).isEqualTo(7);
    assertThat(new String(a.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(b.type()).isEqualTo(Frame.RESPONSE);
    assertThat(b.id()).isEqualTo(8);
    assertThat(b.payload()).isEmpty();
    assertThat((Object) dec.readInbound()).isNull();
    assertThat(dec.finish()).isFalse();
    assertThat(enc.finish()).isFalse();
  }

  @Test
  void oversizedLengthFailsBeforeBuffering() {
    EmbeddedChannel dec = new EmbeddedChannel(new FrameDecoder(1024));
    ByteBuf in = Unpooled.buffer().writeInt(1025).writeByte(1).writeLong(1);
    assertThatThrownBy(() -> dec.writeInbound(in))
        .isInstanceOf(FrameTooLargeException.class)
        .hasMessageContaining("frame length: 1025 (expected: <= 1024)");
    // later bytes are discarded, not decoded
    dec.writeInbound(Unpooled.buffer().writeInt(9).writeByte(2).writeLong(1));
    assertThat((Object) dec.readInbound()).isNull();
    dec.finishAndReleaseAll();
  }

  @Test
  void defaultMaximumIs16MiB() {
    EmbeddedChannel dec = new EmbeddedChannel(new FrameDecoder());
    ByteBuf in = Unpooled.buffer().writeInt(16 * 1024 * 1024 + 1);
    assertThatThrownBy(() -> dec.writeInbound(in)).isInstanceOf(FrameTooLargeException.class);
    dec.finishAndReleaseAll();
  }

  @Test
  void shortLengthAndUnknownTypeAreMalformed() {
    EmbeddedChannel dec = new EmbeddedChannel(new FrameDecoder());
    assertThatThrownBy(() -> dec.writeInbound(Unpooled.buffer().writeInt(3)))
        .isInstanceOf(MalformedFrameException.class)
        .hasMessageContaining("frame length: 3 (expected: >= 9)");
    dec.finishAndReleaseAll();
    EmbeddedChannel dec2 = new EmbeddedChannel(new FrameDecoder());
    assertThatThrownBy(() -> dec2.writeInbound(
        Unpooled.buffer().writeInt(9).writeByte(9).writeLong(1)))
        .isInstanceOf(MalformedFrameException.class)
        .hasMessageContaining("frame type: 9");
    dec2.finishAndReleaseAll();
  }

  @Test
  void encoderRefusesOversizedFrames() {
    EmbeddedChannel enc = new EmbeddedChannel(new FrameEncoder(100));
    assertThatThrownBy(() -> enc.writeOutbound(new Frame(Frame.REQUEST, 1, new byte[100])))
        .isInstanceOf(EncoderException.class)
        .hasCauseInstanceOf(FrameTooLargeException.class);
    assertThat((Object) enc.readOutbound()).isNull();
    enc.finishAndReleaseAll();
  }
}

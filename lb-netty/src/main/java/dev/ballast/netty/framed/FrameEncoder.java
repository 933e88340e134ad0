package dev.ballast.netty.framed;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Encodes {@link Frame}s; an outgoing frame above the maximum frame size fails its write with
 * {@link FrameTooLargeException} and nothing is sent. Stateless and sharable.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<Frame> {

  private final int maxFrameSize;

  /** Creates an encoder with the default maximum frame size, 16 MiB. */
  public FrameEncoder() {
    this(FrameDecoder.DEFAULT_MAX_FRAME_SIZE);
  }

  /** Creates an encoder refusing frames longer than {@code maxFrameSize}. */
  public FrameEncoder(int maxFrameSize) {
    super(Frame.class);
    this.maxFrameSize = maxFrameSize;
  }

  @Override
  protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Frame msg, boolean preferDirect) {
    int length = msg.frameLength();
    if (length > maxFrameSize) {
      throw new FrameTooLargeException(length, maxFrameSize);
    }
    return ctx.alloc().ioBuffer(Frame.LENGTH_BYTES + length);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Frame msg, ByteBuf out) {
    out.writeInt(msg.frameLength());
    out.writeByte(msg.type());
    out.writeLong(msg.id());
    out.writeBytes(msg.payload());
  }
}

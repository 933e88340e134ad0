package dev.ballast.netty.framed;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Decodes bytes into {@link Frame}s. A length field above the maximum frame size raises {@link
 * FrameTooLargeException} before the body is buffered; a length shorter than the header or an
 * unknown type raises {@link MalformedFrameException}. After an error every further byte is
 * discarded: the handler that sees the error is expected to close the connection.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

  /** The default maximum frame size: 16 MiB. */
  public static final int DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;

  private final int maxFrameSize;
  private boolean failed;

  /** Creates a decoder with the default maximum frame size, 16 MiB. */
  public FrameDecoder() {
    this(DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * Creates a decoder.
   *
   * @param maxFrameSize the largest accepted value of the length field
   * @throws IllegalArgumentException if it is below {@link Frame#HEADER_BYTES}
   */
  public FrameDecoder(int maxFrameSize) {
    if (maxFrameSize < Frame.HEADER_BYTES) {
      throw new IllegalArgumentException(
          "maxFrameSize: " + maxFrameSize + " (expected: >= " + Frame.HEADER_BYTES + ")");
    }
    this.maxFrameSize = maxFrameSize;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (in.readableBytes() >= Frame.LENGTH_BYTES) {
      int start = in.readerIndex();
      long length = in.getUnsignedInt(start);
      if (length > maxFrameSize) {
        fail(in);
        throw new FrameTooLargeException(length, maxFrameSize);
      }
      if (length < Frame.HEADER_BYTES) {
        fail(in);
        throw new MalformedFrameException(
            "frame length: " + length + " (expected: >= " + Frame.HEADER_BYTES + ")");
      }
      if (in.readableBytes() < Frame.LENGTH_BYTES + length) {
        return;
      }
      byte type = in.getByte(start + Frame.LENGTH_BYTES);
      if (type < Frame.REQUEST || type > Frame.LOAD_REPORT) {
        fail(in);
        throw new MalformedFrameException("frame type: " + type + " (expected: 1 to 5)");
      }
      long id = in.getLong(start + Frame.LENGTH_BYTES + 1);
      byte[] payload = new byte[(int) length - Frame.HEADER_BYTES];
      in.getBytes(start + Frame.LENGTH_BYTES + Frame.HEADER_BYTES, payload);
      in.skipBytes(Frame.LENGTH_BYTES + (int) length);
      out.add(new Frame(type, id, payload));
    }
  }

  private void fail(ByteBuf in) {
    failed = true;
    in.skipBytes(in.readableBytes());
  }
}

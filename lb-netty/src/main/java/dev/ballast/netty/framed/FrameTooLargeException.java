package dev.ballast.netty.framed;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * A frame's length field (or an outgoing frame) exceeded the maximum frame size; the connection
 * that carried it is closed.
 */
public final class FrameTooLargeException extends CorruptedFrameException {

  private static final long serialVersionUID = 1L;

  private final long length;
  private final int maxFrameSize;

  /** Creates the exception for a frame of {@code length} bytes over {@code maxFrameSize}. */
  public FrameTooLargeException(long length, int maxFrameSize) {
    super("frame length: " + length + " (expected: <= " + maxFrameSize + ")");
    this.length = length;
    this.maxFrameSize = maxFrameSize;
  }

  /** Returns the frame's length. */
  public long length() {
    return length;
  }

  /** Returns the maximum frame size in force. */
  public int maxFrameSize() {
    return maxFrameSize;
  }
}

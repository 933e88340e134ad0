package dev.ballast.netty.framed;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * Bytes that are not a valid frame (a length shorter than the header, an unknown type, a
 * response to a request id never sent); the connection that carried them is closed.
 */
public final class MalformedFrameException extends CorruptedFrameException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception, naming the bad part. */
  public MalformedFrameException(String message) {
    super(message);
  }
}

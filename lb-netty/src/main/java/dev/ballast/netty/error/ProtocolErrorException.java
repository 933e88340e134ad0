package dev.ballast.netty.error;

/**
 * The server sent something the codec cannot accept (a malformed frame, a frame or body bigger
 * than the maximum, a response to no request, an HTTP/1.1 protocol switch nobody asked for); the
 * connection was closed (over HTTP/2, only the stream was reset when the connection is sound).
 * The cause is the codec's error, e.g. {@link dev.ballast.netty.framed.FrameTooLargeException}.
 */
public final class ProtocolErrorException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public ProtocolErrorException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, true, cause);
  }
}

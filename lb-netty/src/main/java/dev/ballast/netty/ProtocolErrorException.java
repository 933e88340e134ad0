package dev.ballast.netty;

/**
 * The server sent something the codec cannot accept (a malformed frame, a frame bigger than\n * the maximum, a response to no request); the connection was closed. The cause is the codec's\n * error, e.g. {@link dev.ballast.netty.framed.FrameTooLargeException}.
 */
public final class ProtocolErrorException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public ProtocolErrorException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, true, cause);
  }
}

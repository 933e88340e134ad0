package dev.ballast.netty.error;

/**
 * The connection closed (or a write failed) while the request was on it. {@link
 * #reachedServer()} tells whether the request had been written to the socket.
 */
public final class ConnectionClosedException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception; {@code written} tells whether the request had been written. */
  public ConnectionClosedException(
      String what, String endpoint, int attempt, boolean written, Throwable cause) {
    super(what, endpoint, attempt, written, cause);
  }
}

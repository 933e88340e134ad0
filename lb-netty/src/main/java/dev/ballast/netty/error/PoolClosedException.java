package dev.ballast.netty.error;

/**
 * The endpoint's connection pool was closed or is draining (the endpoint was removed or the
 * client is closing). The request never reached a server.
 */
public final class PoolClosedException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public PoolClosedException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, false, cause);
  }
}

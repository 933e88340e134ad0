package dev.ballast.netty.error;

/**
 * The endpoint's connection pool had no free connection and its queue of waiting acquires was
 * full. The request never reached a server.
 */
public final class PoolOverflowException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public PoolOverflowException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, false, cause);
  }
}

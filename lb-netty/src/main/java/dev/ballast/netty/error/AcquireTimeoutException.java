package dev.ballast.netty.error;

/**
 * No connection of the endpoint's pool became free within the acquire timeout (or the call's
 * remaining deadline). The request never reached a server.
 */
public final class AcquireTimeoutException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public AcquireTimeoutException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, false, cause);
  }
}

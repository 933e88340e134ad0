package dev.ballast.netty.error;

/**
 * The server answered with an error (the framed protocol's error frame). The request reached
 * the server.
 */
public final class RemoteException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public RemoteException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, true, cause);
  }
}

package dev.ballast.netty.error;

/**
 * Opening a connection to the endpoint failed (refused, unreachable, the connect timeout passed,
 * or, as the subclass {@link TlsHandshakeException}, the TLS handshake failed). The request
 * never reached a server.
 */
public class ConnectFailedException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt; {@code cause} may be {@code null}. */
  public ConnectFailedException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, false, cause);
  }
}

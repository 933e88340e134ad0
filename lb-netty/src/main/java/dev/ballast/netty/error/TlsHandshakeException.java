package dev.ballast.netty.error;

/**
 * The TLS handshake with the endpoint failed: its certificate is not trusted or does not name
 * the endpoint's host, the server wants a client certificate, they share no protocol version or
 * cipher, or (HTTP/2) the server did not choose {@code h2} by ALPN. The request never reached a
 * server. The cause is the JDK's {@link javax.net.ssl.SSLException}.
 */
public final class TlsHandshakeException extends ConnectFailedException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception for an endpoint and attempt. */
  public TlsHandshakeException(String what, String endpoint, int attempt, Throwable cause) {
    super(what, endpoint, attempt, cause);
  }
}

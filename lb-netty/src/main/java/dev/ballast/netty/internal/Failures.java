package dev.ballast.netty.internal;

import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.ConnectionClosedException;
import dev.ballast.netty.error.ProtocolErrorException;
import dev.ballast.netty.error.RemoteException;
import dev.ballast.netty.error.RequestRefusedException;
import dev.ballast.netty.error.TlsHandshakeException;
import dev.ballast.netty.framed.FrameTooLargeException;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.EncoderException;
import javax.net.ssl.SSLException;

/** Names what went wrong on a connection as the typed {@link BallastException} callers see. */
final class Failures {

  private Failures() {}

  /**
   * Returns {@code cause} as a {@link BallastException} naming the endpoint and attempt: a
   * {@link RemoteException} for the server's error answer, a {@link RequestRefusedException}
   * when the server refused it unprocessed, a {@link ProtocolErrorException} for bad bytes or a
   * request too large to send, else a {@link ConnectionClosedException}.
   */
  static BallastException of(Throwable cause, String address, int attempt, boolean written) {
    if (cause instanceof BallastException b) {
      return b;
    }
    if (cause instanceof RemoteError) {
      return new RemoteException("server error: " + cause.getMessage(), address, attempt, null);
    }
    if (cause instanceof Refused) {
      return new RequestRefusedException("request refused unprocessed: " + cause.getMessage(),
          address, attempt);
    }
    Throwable root = cause;
    if (root instanceof EncoderException && root.getCause() != null) {
      root = root.getCause();
    }
    if (root instanceof FrameTooLargeException && !written) {
      return new ProtocolErrorException("request too large: " + root.getMessage(), address,
          attempt, root);
    }
    if (root instanceof DecoderException || root instanceof CodecException) {
      return new ProtocolErrorException("bad response: " + root.getMessage(), address, attempt,
          root);
    }
    return new ConnectionClosedException(
        (written ? "connection closed with the request in flight: "
            : "connection closed before the request was written: ") + cause,
        address, attempt, written, cause);
  }

  /**
   * Returns why a connection could not be opened: a {@link TlsHandshakeException} when the TLS
   * handshake failed, else a {@link ConnectFailedException}.
   */
  static ConnectFailedException connect(Throwable cause, String address, int attempt) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return new TlsHandshakeException("TLS handshake failed: " + t.getMessage(), address,
            attempt, t);
      }
    }
    return new ConnectFailedException("connect failed: " + cause, address, attempt, cause);
  }
}

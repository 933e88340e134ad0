package dev.ballast.netty;

import dev.ballast.netty.framed.FrameTooLargeException;
import dev.ballast.netty.internal.RemoteError;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.EncoderException;

/** Names what went wrong on a connection as the typed {@link BallastException} callers see. */
final class Failures {

  private Failures() {}

  /**
   * Returns {@code cause} as a {@link BallastException} naming the endpoint and attempt: a
   * {@link RemoteException} for the server's error answer, a {@link ProtocolErrorException} for
   * bad bytes or a request too large to send, else a {@link ConnectionClosedException}.
   */
  static BallastException of(Throwable cause, String address, int attempt, boolean written) {
    if (cause instanceof BallastException b) {
      return b;
    }
    if (cause instanceof RemoteError) {
      return new RemoteException("server error: " + cause.getMessage(), address, attempt, null);
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
      return new ProtocolErrorException("bad response, connection closed: " + root.getMessage(),
          address, attempt, root);
    }
    return new ConnectionClosedException(
        (written ? "connection closed with the request in flight: "
            : "connection closed before the request was written: ") + cause,
        address, attempt, written, cause);
  }
}

package dev.ballast.netty.internal;

/** The server's error answer, before the client stack names the endpoint and attempt. */
public final class RemoteError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the error with the server's message. */
  public RemoteError(String message) {
    super(message, null, false, false);
  }
}

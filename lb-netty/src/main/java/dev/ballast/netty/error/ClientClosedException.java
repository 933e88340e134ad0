package dev.ballast.netty.error;

import dev.ballast.netty.BallastClient;

/**
 * The client was closed: either the call came after {@link BallastClient#close()}, or it was
 * still in flight when the close grace period ended.
 */
public final class ClientClosedException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public ClientClosedException(String what, String endpoint, int attempt, boolean reachedServer) {
    super(what, endpoint, attempt, reachedServer, null);
  }
}

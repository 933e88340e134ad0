package dev.ballast.netty.error;

import dev.ballast.netty.AttemptFilter;

/**
 * The attempt was cancelled because another attempt of the same call answered first (a hedge
 * race). Only {@link AttemptFilter}s see it; the call itself has the winner's answer.
 */
public final class AttemptCancelledException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public AttemptCancelledException(String endpoint, int attempt, boolean reachedServer) {
    super("cancelled: another attempt answered first", endpoint, attempt, reachedServer, null);
  }
}

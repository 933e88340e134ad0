package dev.ballast.netty.error;

import java.time.Duration;

/**
 * The call's deadline passed before a response came; names the endpoint of the attempt in
 * flight at that moment ({@code null} if none was) and how many attempts were made.
 */
public final class DeadlineExceededException extends BallastException {

  private static final long serialVersionUID = 1L;

  private final Duration timeout;

  /** Creates the exception. */
  public DeadlineExceededException(
      Duration timeout, String endpoint, int attempt, boolean reachedServer) {
    this(timeout, endpoint, attempt, reachedServer, "");
  }

  /**
   * Creates the exception; {@code detail} (appended to the message) says what the attempt in
   * flight was waiting for, e.g. {@code " while waiting for a connection (...)"}.
   */
  public DeadlineExceededException(
      Duration timeout, String endpoint, int attempt, boolean reachedServer, String detail) {
    super("deadline of " + timeout.toMillis() + " ms exceeded" + detail, endpoint, attempt,
        reachedServer, null);
    this.timeout = timeout;
  }

  /** Returns the call's timeout. */
  public Duration timeout() {
    return timeout;
  }
}

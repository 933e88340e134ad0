package dev.ballast.netty.error;

/**
 * The base of every failure the client stack reports: it says what happened, at which endpoint
 * ({@code host:port}, or {@code null} when no endpoint was involved) and on which attempt (1 for
 * the first try, 0 when no attempt was made), and whether the request may have reached a server.
 */
public class BallastException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String endpoint;
  private final int attempt;
  private final boolean reachedServer;

  /**
   * Creates the exception; the message gets {@code [endpoint E, attempt N]} appended.
   *
   * @param what what happened
   * @param endpoint the endpoint's address, or {@code null}
   * @param attempt the attempt number, 1-based; 0 when no attempt was made
   * @param reachedServer whether the request may have reached the server
   * @param cause the underlying failure, or {@code null}
   */
  protected BallastException(
      String what, String endpoint, int attempt, boolean reachedServer, Throwable cause) {
    super(what + where(endpoint, attempt), cause);
    this.endpoint = endpoint;
    this.attempt = attempt;
    this.reachedServer = reachedServer;
  }

  private static String where(String endpoint, int attempt) {
    if (endpoint == null && attempt == 0) {
      return "";
    }
    StringBuilder sb = new StringBuilder(" [");
    if (endpoint != null) {
      sb.append("endpoint ").append(endpoint);
    }
    if (attempt > 0) {
      sb.append(endpoint != null ? ", " : "").append("attempt ").append(attempt);
    }
    return sb.append(']').toString();
  }

  /** Returns the address ({@code host:port}) of the endpoint involved, or {@code null}. */
  public String endpoint() {
    return endpoint;
  }

  /** Returns the attempt number, 1 for the first try; 0 when no attempt was made. */
  public int attempt() {
    return attempt;
  }

  /**
   * Returns whether the request may have reached a server; when false it certainly did not, and
   * retrying it elsewhere is safe even if it is not idempotent.
   */
  public boolean reachedServer() {
    return reachedServer;
  }
}

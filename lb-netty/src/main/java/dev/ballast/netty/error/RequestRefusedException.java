package dev.ballast.netty.error;

/**
 * The server refused the request before processing it: over HTTP/2, its stream was above the
 * last stream id of the server's GOAWAY, or was reset with REFUSED_STREAM (RFC 9113, sections
 * 6.8 and 8.7). The request never had an effect, so it is retried elsewhere whatever its
 * method; such a retry takes nothing from the retry budget and is not counted in the policy's
 * most attempts (at most {@value #FREE_RETRIES} per call), and the refusal counts as no failure
 * of the endpoint.
 */
public final class RequestRefusedException extends BallastException {

  private static final long serialVersionUID = 1L;

  /** How many refused attempts of one call are retried outside the retry policy's count. */
  public static final int FREE_RETRIES = 10;

  /** Creates the exception for an endpoint and attempt. */
  public RequestRefusedException(String what, String endpoint, int attempt) {
    super(what, endpoint, attempt, false, null);
  }
}

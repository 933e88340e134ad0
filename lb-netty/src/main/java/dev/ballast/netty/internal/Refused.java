package dev.ballast.netty.internal;

/**
 * The server refused a request without processing it (HTTP/2: a stream above a GOAWAY's last
 * stream id, or reset with REFUSED_STREAM), before the client stack names the endpoint and
 * attempt.
 */
public final class Refused extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the refusal, saying how the server refused. */
  public Refused(String message) {
    super(message, null, false, false);
  }
}

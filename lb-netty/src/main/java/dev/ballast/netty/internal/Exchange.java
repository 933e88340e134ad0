package dev.ballast.netty.internal;

/**
 * The callbacks of one request on one connection. The dispatcher calls {@link #onWritten()} at
 * most once, then exactly one of {@link #onResponse} or {@link #onFailure}, unless the request
 * was cancelled first.
 *
 * @param <Rep> the response type
 */
public interface Exchange<Rep> {

  /**
   * The request reached the server: a byte of it was written to the socket (or, where a
   * protocol cannot tell, it was handed to the channel). A request that reached the server may
   * have been acted on, so it is not sent again unless it is idempotent.
   */
  void onWritten();

  /** The response arrived. */
  void onResponse(Rep response);

  /**
   * The request failed: the connection closed or broke ({@link java.io.IOException}, {@link
   * java.nio.channels.ClosedChannelException}), the server sent bad bytes ({@link
   * io.netty.handler.codec.CorruptedFrameException} and kin), or answered with an error ({@link
   * RemoteError}).
   */
  void onFailure(Throwable cause);

  /**
   * Whether the answer is complete at its status line and fields: the dispatcher hands it on
   * with an empty body as soon as they are in, and discards the body without holding it (an
   * HTTP/2 stream is reset with CANCEL); default false. A health check's verdict is its status.
   */
  default boolean statusOnly() {
    return false;
  }

  /**
   * Whether the request asks the server for a load report (its balancer weighs servers by
   * them); default false.
   */
  default boolean wantsLoadReport() {
    return false;
  }

  /**
   * The server's load report for this request came (the text of Envoy's {@code
   * endpoint-load-metrics} header, as bytes), before its answer; by default it is ignored.
   */
  default void onLoadReport(byte[] report) {
  }
}

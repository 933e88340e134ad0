package dev.ballast.netty.internal;

/** Where the client reports what happens; the no-op one unless Micrometer is configured. */
interface ClientMetrics {

  ClientMetrics NOOP = new ClientMetrics() {};

  /** Per-endpoint handle, made when the endpoint joins and closed when it leaves. */
  interface ForEndpoint {
    ForEndpoint NOOP = new ForEndpoint() {};

    default void success(long latencyNanos) {}

    /** A failed attempt; {@code cause} is null for a response classified as a failure. */
    default void failure(long latencyNanos, Throwable cause) {}

    default void ejected() {}

    default void close() {}
  }

  default ForEndpoint endpoint(EndpointClient<?, ?> endpoint) {
    return ForEndpoint.NOOP;
  }

  default void retry() {}

  default void budgetExhausted() {}

  default void hedge() {}

  default void hedgeWon() {}

  default void call(boolean success, long latencyNanos) {}

  /** Reports an endpoint source's state, for as long as the client lives. */
  default void source(dev.ballast.core.source.EndpointFeed feed) {}
}

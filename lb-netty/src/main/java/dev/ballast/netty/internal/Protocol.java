package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.ResponseClassifier;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;

/**
 * What the client needs to know about a wire protocol: how to set up a connection's pipeline
 * (over TLS or not), how many requests a connection may carry at once, which requests are
 * idempotent by the protocol's own rules, and how its outcomes are classified by default.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public interface Protocol<Req, Rep> {

  /**
   * Adds the codec handlers of a connection to {@code endpoint} and returns the dispatcher,
   * which it added last; the TLS handler, when {@link #tls()} is not null, is in the pipeline
   * already.
   */
  Dispatcher<Req, Rep> init(ChannelPipeline pipeline, Endpoint endpoint);

  /** Returns the TLS context of the connections, or null (the default) for plain TCP. */
  default SslContext tls() {
    return null;
  }

  /** Returns the cap of requests in flight on one connection (1 for HTTP/1.1). */
  int maxInFlightPerConnection();

  /** Returns whether the protocol makes the request idempotent (HTTP's GET); default false. */
  default boolean isIdempotent(Req request) {
    return false;
  }

  /**
   * Returns the load report the server sent with this response (the text of Envoy's {@code
   * endpoint-load-metrics} header), or null, the default, when the protocol carries none.
   */
  default String loadReport(Rep response) {
    return null;
  }

  /** Returns the default response classifier. */
  ResponseClassifier<Req, Rep> classifier();
}

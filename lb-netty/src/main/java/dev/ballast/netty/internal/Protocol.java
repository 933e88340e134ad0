package dev.ballast.netty.internal;

import dev.ballast.netty.ResponseClassifier;
import io.netty.channel.ChannelPipeline;

/**
 * What the client needs to know about a wire protocol: how to set up a connection's pipeline,
 * how many requests a connection may carry at once, which requests are idempotent by the
 * protocol's own rules, and how its outcomes are classified by default.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public interface Protocol<Req, Rep> {

  /** Adds the codec handlers and returns the dispatcher, which it added last. */
  Dispatcher<Req, Rep> init(ChannelPipeline pipeline);

  /** Returns the cap of requests in flight on one connection (1 for HTTP/1.1). */
  int maxInFlightPerConnection();

  /** Returns whether the protocol makes the request idempotent (HTTP's GET); default false. */
  default boolean isIdempotent(Req request) {
    return false;
  }

  /** Returns the default response classifier. */
  ResponseClassifier<Req, Rep> classifier();
}

package dev.ballast.netty.internal;

import io.netty.channel.ChannelPipeline;

/**
 * What the connection pool needs to know about a wire protocol: how to set up a connection's
 * pipeline, and how many requests a connection may carry at once.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public interface Protocol<Req, Rep> {

  /** Adds the codec handlers and returns the dispatcher, which it added last. */
  Dispatcher<Req, Rep> init(ChannelPipeline pipeline);

  /** Returns the cap of requests in flight on one connection (1 for HTTP/1.1). */
  int maxInFlightPerConnection();
}

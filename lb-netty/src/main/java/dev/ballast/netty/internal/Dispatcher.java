package dev.ballast.netty.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.Future;

/**
 * The last handler of a client connection's pipeline: writes requests and matches responses to
 * them. Thread-safe: {@link #send} and {@link #cancel} may be called from any thread.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public abstract class Dispatcher<Req, Rep> extends ChannelInboundHandlerAdapter {

  /**
   * Writes the request; the exchange hears about the outcome.
   *
   * @return a token for {@link #cancel(long)}
   */
  public abstract long send(Req request, Exchange<Rep> exchange);

  /**
   * Forgets the request with this token (its deadline passed): a late answer is dropped. A
   * protocol that cannot drop late answers poisons the connection instead.
   */
  public abstract void cancel(long token);

  /**
   * Returns whether a request may stay registered after its caller gave up, so that its late
   * answer (or the connection's end) still reaches the exchange while other requests share the
   * connection: true for multiplexed protocols; false (the default) when an abandoned request
   * must be {@linkplain #cancel cancelled}.
   */
  public boolean keepsLateAnswers() {
    return false;
  }

  /** Returns whether the connection must not be reused (broken, or a request was abandoned). */
  public abstract boolean isPoisoned();

  /**
   * Returns a future that completes when the connection can take requests, or fails if it
   * cannot: at once by default; HTTP/2 waits for the server's first SETTINGS. Called once, on
   * the channel's event loop, once it is connected and its TLS handshake, if any, is done.
   */
  public Future<?> ready(Channel channel) {
    return channel.newSucceededFuture();
  }

  /**
   * Returns how many requests the connection takes at once now, the pool's own cap aside:
   * unbounded by default; HTTP/2 says what the server allows (its MAX_CONCURRENT_STREAMS).
   */
  public int maxInFlight() {
    return Integer.MAX_VALUE;
  }
}

package dev.ballast.netty.internal;

import io.netty.channel.Channel;

/** One connection of a {@link ConnectionPool}; its counters are guarded by the pool's lock. */
final class PooledConnection<Req, Rep> {
  final Channel channel;
  final Dispatcher<Req, Rep> dispatcher;
  final long expiresAt; // Long.MAX_VALUE when no lifetime
  final int loop; // its loop's index in the client's LoopSpread (LoopSpread.NONE: none of them)
  int inFlight;
  long lastUsed;
  boolean retired;

  PooledConnection(Channel channel, Dispatcher<Req, Rep> dispatcher, long now, long expiresAt,
      int loop) {
    this.channel = channel;
    this.loop = loop;
    this.dispatcher = dispatcher;
    this.lastUsed = now;
    this.expiresAt = expiresAt;
  }

  /** Returns the most requests this connection takes at once: the pool's cap or the server's. */
  int cap(int poolCap) {
    return Math.min(poolCap, dispatcher.maxInFlight());
  }

  boolean usable(long now) {
    return !retired && (expiresAt == Long.MAX_VALUE || now - expiresAt < 0) && channel.isActive()
        && !dispatcher.isPoisoned();
  }
}

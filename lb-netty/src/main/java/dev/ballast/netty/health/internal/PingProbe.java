package dev.ballast.netty.health.internal;

import dev.ballast.core.Health;
import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameEncoder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;

/**
 * Checks a framed endpoint with a {@link Frame#PING}: a ping back passes; an error frame (the
 * server says it is not serving), any other frame or a closed connection fails. A server that
 * predates pings closes the connection on the unknown frame type: its checks fail.
 */
final class PingProbe extends Probe {

  private static final byte[] EMPTY = new byte[0];

  private final int maxFrameSize;
  private final FrameEncoder encoder;

  PingProbe(int maxFrameSize, SslContext tls, EventLoopGroup group, int connectTimeoutMillis) {
    super(group, connectTimeoutMillis, tls);
    this.maxFrameSize = maxFrameSize;
    this.encoder = new FrameEncoder(maxFrameSize);
  }

  @Override
  void init(ChannelPipeline pipeline, Check check) {
    pipeline.addLast(new FrameDecoder(maxFrameSize), encoder, new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame f = (Frame) msg;
        check.end(f.type() == Frame.PING && f.id() == 1 ? Health.HEALTHY : Health.UNHEALTHY);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        check.end(Health.UNHEALTHY);
      }
    });
  }

  @Override
  void ask(Channel channel, Check check) {
    channel.writeAndFlush(new Frame(Frame.PING, 1, EMPTY)).addListener(w -> {
      if (!w.isSuccess()) {
        check.end(Health.UNHEALTHY);
      }
    });
  }
}

package dev.ballast.bench.live;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * The server side of the live benchmarks' HTTP/2 (after an {@code Http2FrameCodec}): each stream
 * is served once its request has ended (headers or data with END_STREAM), its frames released;
 * an error closes the connection (a client that retires a connection may reset it).
 */
public abstract class Http2Requests extends ChannelInboundHandlerAdapter {

  /** Answers the request of {@code stream}, now or later, on {@code ctx}. */
  protected abstract void serve(ChannelHandlerContext ctx, Http2FrameStream stream);

  @Override
  public final void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof Http2HeadersFrame h && h.isEndStream()) {
        serve(ctx, h.stream());
      } else if (msg instanceof Http2DataFrame d && d.isEndStream()) {
        serve(ctx, d.stream());
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public final void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}

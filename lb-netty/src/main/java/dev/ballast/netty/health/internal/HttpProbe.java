package dev.ballast.netty.health.internal;

import dev.ballast.core.Health;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Dispatcher;
import dev.ballast.netty.internal.Exchange;
import dev.ballast.netty.internal.HttpProtocol;
import dev.ballast.netty.internal.Protocol;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.util.ReferenceCountUtil;

/**
 * Checks an HTTP endpoint with {@code GET path} in the client's own protocol (its codecs, HTTP/1.1
 * or HTTP/2, its TLS): a 2xx answer passes, anything else fails. The verdict is taken at the
 * status line: the body is discarded as it comes, never held (an HTTP/2 stream is reset once its
 * head is in), so a large body costs no memory. Over HTTP/1.1 the request says
 * {@code Connection: close}, so that the server closes first and the client keeps no TIME_WAIT
 * socket per check.
 */
final class HttpProbe extends Probe {

  private final Protocol<HttpRequest, HttpResponse> protocol;
  private static final AskToClose CLOSE = new AskToClose();

  private final HttpRequest request;
  private final boolean closeFirst;

  HttpProbe(Protocol<HttpRequest, HttpResponse> protocol, String path, EventLoopGroup group,
      int connectTimeoutMillis) {
    super(group, connectTimeoutMillis, protocol.tls());
    this.protocol = protocol;
    this.request = HttpRequest.get(path);
    this.closeFirst = protocol instanceof HttpProtocol;
  }

  @Override
  void init(ChannelPipeline pipeline, Check check) {
    protocol.init(pipeline, check.endpoint);
    if (closeFirst) { // below the dispatcher, which refuses the header from callers
      pipeline.addBefore(pipeline.context(Dispatcher.class).name(), null, CLOSE);
      pipeline.addBefore(pipeline.context(HttpObjectAggregator.class).name(), null,
          new StatusOnly());
    }
  }

  /**
   * Hands each HTTP/1.1 answer on at its head, as a whole answer without a body, and drops the
   * body as it comes (the check closes the connection once it has its verdict): a check holds
   * one decoded chunk at most, whatever the body's size, where the aggregator would hold it all.
   */
  static final class StatusOnly extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof io.netty.handler.codec.http.HttpResponse head) {
        DefaultFullHttpResponse whole = new DefaultFullHttpResponse(head.protocolVersion(),
            head.status(), Unpooled.EMPTY_BUFFER, head.headers(),
            EmptyHttpHeaders.INSTANCE);
        whole.setDecoderResult(head.decoderResult());
        ReferenceCountUtil.release(msg); // a FullHttpResponse, were the decoder to make one
        ctx.fireChannelRead(whole);
      } else if (msg instanceof HttpContent) {
        ReferenceCountUtil.release(msg);
      } else {
        ctx.fireChannelRead(msg); // bytes after a 101: the dispatcher fails the check
      }
    }
  }

  /** Asks an HTTP/1.1 server to close the connection after its answer. */
  @ChannelHandler.Sharable
  private static final class AskToClose extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof io.netty.handler.codec.http.HttpRequest r) {
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      ctx.write(msg, promise);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  void ask(Channel channel, Check check) {
    Dispatcher<HttpRequest, HttpResponse> d = channel.pipeline().get(Dispatcher.class);
    if (d == null) {
      check.end(Health.UNHEALTHY);
      return;
    }
    d.ready(channel).addListener(r -> {
      if (!r.isSuccess()) {
        check.end(Health.UNHEALTHY);
        return;
      }
      d.send(request, new Exchange<>() {
        @Override
        public void onWritten() {}

        @Override
        public void onResponse(HttpResponse response) {
          int s = response.status();
          check.end(s >= 200 && s < 300 ? Health.HEALTHY : Health.UNHEALTHY);
        }

        @Override
        public void onFailure(Throwable cause) {
          check.end(Health.UNHEALTHY);
        }

        @Override
        public boolean statusOnly() {
          return true;
        }
      });
    });
  }
}

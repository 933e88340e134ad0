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
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;

/**
 * Checks an HTTP endpoint with {@code GET path} in the client's own protocol (its codecs, HTTP/1.1
 * or HTTP/2, its TLS): a 2xx answer passes, anything else fails. Over HTTP/1.1 the request says
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
      });
    });
  }
}

package dev.ballast.netty.internal;

import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** HTTP/1.1 on the client side: Netty's codec and aggregator, one request per connection. */
public final class HttpProtocol implements Protocol<HttpRequest, HttpResponse> {

  private final int maxContentLength;

  /** Creates the protocol; responses with a bigger body fail with a protocol error. */
  public HttpProtocol(int maxContentLength) {
    this.maxContentLength = maxContentLength;
  }

  @Override
  public Dispatcher<HttpRequest, HttpResponse> init(ChannelPipeline pipeline) {
    HttpDispatcher d = new HttpDispatcher();
    pipeline.addLast(new HttpClientCodec(), new HttpObjectAggregator(maxContentLength), d);
    return d;
  }

  @Override
  public int maxInFlightPerConnection() {
    return 1;
  }

  @Override
  public boolean isIdempotent(HttpRequest request) {
    return request.isIdempotent();
  }

  @Override
  public ResponseClassifier<HttpRequest, HttpResponse> classifier() {
    return HttpClassifier.INSTANCE;
  }

  static final class HttpDispatcher extends Dispatcher<HttpRequest, HttpResponse> {
    private volatile Channel channel;
    private volatile Exchange<HttpResponse> current;
    private volatile boolean poisoned;
    private String hostHeader;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      channel = ctx.channel();
    }

    @Override
    public long send(HttpRequest request, Exchange<HttpResponse> exchange) {
      Channel ch = channel;
      if (poisoned || current != null || !ch.isActive()) {
        exchange.onFailure(new ClosedChannelException());
        return 0;
      }
      current = exchange;
      if (hostHeader == null) {
        InetSocketAddress a = (InetSocketAddress) ch.remoteAddress();
        hostHeader = a.getHostString() + ":" + a.getPort();
      }
      DefaultFullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
          HttpMethod.valueOf(request.method()), request.uri(),
          Unpooled.wrappedBuffer(request.body()));
      request.headers().forEach((k, v) -> r.headers().set(k, v));
      r.headers().set(HttpHeaderNames.HOST, hostHeader);
      HttpUtil.setContentLength(r, request.body().length);
      HttpUtil.setKeepAlive(r, true);
      ch.writeAndFlush(r).addListener((ChannelFutureListener) f -> {
        if (f.isSuccess()) {
          exchange.onWritten();
        } else if (clear(exchange)) {
          poisoned = true;
          exchange.onFailure(f.cause());
        }
      });
      return 1;
    }

    private synchronized boolean clear(Exchange<HttpResponse> ex) {
      if (current == ex) {
        current = null;
        return true;
      }
      return false;
    }

    private synchronized Exchange<HttpResponse> take() {
      Exchange<HttpResponse> ex = current;
      current = null;
      return ex;
    }

    @Override
    public void cancel(long token) {
      // HTTP/1.1 cannot skip an answer: the connection is closed once released.
      poisoned = true;
      take();
    }

    @Override
    public boolean isPoisoned() {
      return poisoned || !channel.isActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      FullHttpResponse res = (FullHttpResponse) msg;
      try {
        if (res.decoderResult().isFailure()) {
          fail(ctx, new CorruptedFrameException("bad HTTP response: "
              + res.decoderResult().cause(), res.decoderResult().cause()));
          return;
        }
        if (!HttpUtil.isKeepAlive(res)) {
          poisoned = true;
        }
        Exchange<HttpResponse> ex = take();
        if (ex == null) {
          if (!poisoned) {
            fail(ctx, new CorruptedFrameException("HTTP response to no request"));
          }
          return;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : res.headers()) {
          headers.merge(h.getKey().toLowerCase(Locale.ROOT), h.getValue(),
              (a, b) -> a + ", " + b);
        }
        ex.onResponse(new HttpResponse(res.status().code(), headers,
            ByteBufUtil.getBytes(res.content())));
      } finally {
        res.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(ctx, cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      poisoned = true;
      Exchange<HttpResponse> ex = take();
      if (ex != null) {
        ex.onFailure(new ClosedChannelException());
      }
      ctx.fireChannelInactive();
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
      poisoned = true;
      Exchange<HttpResponse> ex = take();
      if (ex != null) {
        ex.onFailure(cause);
      }
      ctx.close();
    }
  }
}

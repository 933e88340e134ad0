package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.http.Headers;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpContentException;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * HTTP/1.1 on the client side (RFC 9112): Netty's request encoder, response decoder and
 * aggregator, one request per connection at a time, connections kept alive. Interim 1xx answers
 * are skipped; a 101 (never asked for) fails the request and closes the connection; the answer
 * to a HEAD has no body whatever its length says; a body over the limit fails the request.
 */
public final class HttpProtocol extends HttpProtocols {

  /**
   * Creates the protocol: responses with a bigger body fail with a protocol error; over TLS
   * when {@code tls} is not null.
   */
  public HttpProtocol(int maxContentLength, SslContext tls) {
    super(maxContentLength, tls);
  }

  @Override
  public Dispatcher<HttpRequest, HttpResponse> init(ChannelPipeline pipeline, Endpoint endpoint) {
    HttpDispatcher d = new HttpDispatcher(authority(endpoint, tls != null), maxContentLength);
    pipeline.addLast(new HttpRequestEncoder(), d.decoder,
        new HttpObjectAggregator(maxContentLength), d);
    return d;
  }

  @Override
  public int maxInFlightPerConnection() {
    return 1;
  }

  /** The response decoder: it knows the method of the request in flight, for HEAD's answer. */
  static final class Decoder extends HttpResponseDecoder {
    volatile boolean head;

    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage msg) {
      int code = ((io.netty.handler.codec.http.HttpResponse) msg).status().code();
      // RFC 9110, section 9.3.2: the final answer to a HEAD has no content
      return (code >= 200 && head) || super.isContentAlwaysEmpty(msg);
    }
  }

  static final class HttpDispatcher extends Dispatcher<HttpRequest, HttpResponse> {
    final Decoder decoder = new Decoder();
    private final String authority;
    private final int maxContentLength;
    private volatile Channel channel;
    private volatile Exchange<HttpResponse> current;
    private volatile boolean poisoned;

    HttpDispatcher(String authority, int maxContentLength) {
      this.authority = authority;
      this.maxContentLength = maxContentLength;
    }

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
      decoder.head = request.method().equals("HEAD");
      DefaultHttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1,
          HttpMethod.valueOf(request.method()), request.uri());
      HttpHeaders h = r.headers();
      Headers fields = request.headers();
      if (!fields.contains("host")) {
        h.add(HttpHeaderNames.HOST, authority);
      }
      for (int i = 0, n = fields.size(); i < n; i++) {
        h.add(fields.name(i), fields.value(i));
      }
      byte[] body = request.body();
      if (body.length > 0 || expectsBody(request.method())) {
        HttpUtil.setContentLength(r, body.length);
      }
      LastHttpContent last = body.length == 0 ? LastHttpContent.EMPTY_LAST_CONTENT
          : new DefaultLastHttpContent(Unpooled.wrappedBuffer(body));
      EventLoop loop = ch.eventLoop();
      if (loop.inEventLoop()) {
        write(ch, r, last, exchange);
        return 1;
      }
      // From another thread, both writes go to the connection's loop as one task: one hand-off,
      // one wake-up. Written from here, each write would be a task of its own, and a listener
      // added to a write the loop had already done one more task (and wake-up).
      try {
        loop.execute(() -> write(ch, r, last, exchange));
      } catch (RejectedExecutionException e) { // the loop is shut down
        ReferenceCountUtil.release(last);
        failWrite(exchange, new ClosedChannelException());
      }
      return 1;
    }

    // On the channel's loop. The head and the body are written apart: once the head is on the
    // wire, the request has reached the server (it may act on it), even if the body is then cut
    // off. A write the flush completed at once is read here, with no listener to allocate.
    private void write(Channel ch, DefaultHttpRequest head, LastHttpContent last,
        Exchange<HttpResponse> exchange) {
      ChannelFuture h = ch.write(head);
      ChannelFuture b = ch.writeAndFlush(last);
      if (h.isDone()) {
        headWritten(h, exchange);
      } else {
        h.addListener((ChannelFutureListener) f -> headWritten(f, exchange));
      }
      if (b.isDone()) {
        bodyWritten(b, exchange);
      } else {
        b.addListener((ChannelFutureListener) f -> bodyWritten(f, exchange));
      }
    }

    private static void headWritten(ChannelFuture f, Exchange<HttpResponse> exchange) {
      if (f.isSuccess()) {
        exchange.onWritten();
      }
    }

    private void bodyWritten(ChannelFuture f, Exchange<HttpResponse> exchange) {
      if (!f.isSuccess()) {
        failWrite(exchange, f.cause());
      }
    }

    private void failWrite(Exchange<HttpResponse> exchange, Throwable cause) {
      if (clear(exchange)) {
        poisoned = true;
        exchange.onFailure(cause);
      }
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
      if (!(msg instanceof FullHttpResponse res)) {
        // bytes after a 101, passed on raw by the decoder: the connection is closing
        ReferenceCountUtil.release(msg);
        fail(ctx, new CorruptedFrameException("bytes after a protocol switch"));
        return;
      }
      try {
        if (res.decoderResult().isFailure()) {
          fail(ctx, new CorruptedFrameException("bad HTTP response: "
              + res.decoderResult().cause(), res.decoderResult().cause()));
          return;
        }
        int status = res.status().code();
        if (status == 101) {
          fail(ctx, new CorruptedFrameException("unsolicited 101 Switching Protocols to "
              + res.headers().get(HttpHeaderNames.UPGRADE) + " (the client asked for none)"));
          return;
        }
        if (status < 200) {
          return; // interim (100 Continue, 103 Early Hints): the final answer follows
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
        Headers.Builder headers = Headers.builder();
        for (Map.Entry<String, String> f : res.headers()) {
          headers.add(f.getKey(), f.getValue());
        }
        ex.onResponse(new HttpResponse(status, headers.build(),
            ByteBufUtil.getBytes(res.content())));
      } catch (IllegalArgumentException e) { // a header value our checks refuse
        fail(ctx, new CorruptedFrameException("bad HTTP response: " + e.getMessage(), e));
      } finally {
        res.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof TooLongHttpContentException) {
        cause = new TooLongFrameException("response body: more than " + maxContentLength
            + " bytes (expected: at most maxFrameSize)");
      }
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

package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP server, HTTP/1.1 or h2c (prior knowledge), with a health path: {@code /health}
 * answers 200 while healthy and 503 when not; every other path answers {@code 200 ok} and counts
 * as a call.
 */
public final class HealthServer implements AutoCloseable {

  private static final ByteBufAllocator ALLOCATOR = new UnpooledByteBufAllocator(false);
  private static final byte[] CHUNK = new byte[64 * 1024];

  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger checks = new AtomicInteger();
  private volatile boolean healthy = true;
  private final int healthBody;

  private HealthServer(boolean http2, int healthBody) throws InterruptedException {
    this.healthBody = healthBody;
    ChannelHandler answer = new Answer();
    server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        // its own allocator, so that the clients' memory can be told apart from the server's
        .childOption(ChannelOption.ALLOCATOR, ALLOCATOR)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            children.add(ch);
            if (!http2) {
              ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16),
                  answer);
              return;
            }
            ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel stream) {
                    stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                        new HttpObjectAggregator(1 << 16), answer);
                  }
                }));
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** Starts an HTTP/1.1 server, or an h2c one. */
  public static HealthServer start(boolean http2) throws InterruptedException {
    return new HealthServer(http2, 0);
  }

  /**
   * Starts a server whose healthy {@code /health} answer announces a body of {@code bytes}
   * ({@code Content-Length}) and sends all of it but the last byte, then holds the connection
   * until the client closes it: a client that waits for the whole body never gets it.
   */
  public static HealthServer startWithHealthBody(boolean http2, int bytes)
      throws InterruptedException {
    return new HealthServer(http2, bytes);
  }

  /** Sets what {@code /health} answers: 200 when healthy, 503 when not. */
  public void setHealthy(boolean healthy) {
    this.healthy = healthy;
  }

  /** Returns the calls (requests to other paths) answered so far. */
  public int calls() {
    return calls.get();
  }

  /** Returns the health checks answered so far. */
  public int checks() {
    return checks.get();
  }

  /** Returns this server as an endpoint. */
  public Endpoint endpoint() {
    InetSocketAddress a = (InetSocketAddress) server.localAddress();
    return Endpoint.of("127.0.0.1", a.getPort());
  }

  @Override
  public void close() {
    server.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
    children.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
  }

  @ChannelHandler.Sharable
  private final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      boolean check = req.uri().equals("/health");
      if (check && healthy && healthBody > 0) {
        checks.incrementAndGet();
        DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
            HttpResponseStatus.OK);
        HttpUtil.setContentLength(head, healthBody);
        ctx.write(head);
        for (int sent = 0; sent < healthBody - 1; sent += CHUNK.length) {
          int n = Math.min(CHUNK.length, healthBody - 1 - sent);
          ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(CHUNK, 0, n)));
        }
        ctx.flush(); // the last byte never comes
        return;
      }
      HttpResponseStatus status = check && !healthy
          ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK;
      FullHttpResponse rep = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
          Unpooled.copiedBuffer(check ? "health" : "ok", StandardCharsets.UTF_8));
      HttpUtil.setContentLength(rep, rep.content().readableBytes());
      boolean close = !HttpUtil.isKeepAlive(req);
      if (close) {
        rep.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      // counted before the answer leaves, so that a client that saw it sees the count
      (check ? checks : calls).incrementAndGet();
      if (close) {
        ctx.writeAndFlush(rep).addListener(f -> ctx.close());
      } else {
        ctx.writeAndFlush(rep);
      }
    }
  }
}

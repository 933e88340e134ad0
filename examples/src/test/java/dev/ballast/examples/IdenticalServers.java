package dev.ballast.examples;

import dev.ballast.core.Endpoint;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * Identical HTTP servers on 127.0.0.1 that answer every request at once and count them, all on
 * one I/O thread, and one I/O thread for the client under test: on a busy 2-core host, a server
 * or a connection with a thread of its own is as fast as the scheduler lets that thread run, so
 * servers on threads of their own are not identical, and a load-aware balancer rightly follows
 * the difference (least_loaded as much as P2C).
 */
final class IdenticalServers implements AutoCloseable {

  private final EventLoopGroup serverThread =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup clientThread =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final List<Channel> servers = new ArrayList<>();
  private final List<IntSupplier> answered = new ArrayList<>();

  /** The one I/O thread for the client under test. */
  EventLoopGroup clientThread() {
    return clientThread;
  }

  /** Each server's count of answered requests, in the order started. */
  List<IntSupplier> answered() {
    return answered;
  }

  /** Starts an h2c server that answers every request 200. */
  Endpoint http2() throws InterruptedException {
    AtomicInteger count = new AtomicInteger();
    return start(count, new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Answer(count, true));
      }
    });
  }

  /** Starts an HTTP/1.1 server that answers every request 200 "ok", keeping the connection. */
  Endpoint http1() throws InterruptedException {
    AtomicInteger count = new AtomicInteger();
    return start(count, new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline().addLast(new HttpServerCodec(), new Answer(count, false));
      }
    });
  }

  private Endpoint start(AtomicInteger count, ChannelHandler init) throws InterruptedException {
    Channel server = new ServerBootstrap().group(serverThread)
        .channel(NioServerSocketChannel.class).childHandler(init)
        .bind("127.0.0.1", 0).sync().channel();
    servers.add(server);
    answered.add(count::get);
    return Endpoint.of("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
  }

  @Override
  public void close() {
    servers.forEach(s -> s.close().syncUninterruptibly());
    serverThread.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    clientThread.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Answers each request when its last part has arrived. */
  private static final class Answer extends ChannelInboundHandlerAdapter {
    private final AtomicInteger count;
    private final boolean http2;

    Answer(AtomicInteger count, boolean http2) {
      this.count = count;
      this.http2 = http2;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (http2 && msg instanceof Http2HeadersFrame h && h.isEndStream()) {
          count.incrementAndGet();
          ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200"),
              true).stream(h.stream()));
        } else if (!http2 && msg instanceof LastHttpContent) {
          count.incrementAndGet();
          FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
              HttpResponseStatus.OK, Unpooled.copiedBuffer("ok", StandardCharsets.UTF_8));
          r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
              .setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
          ctx.writeAndFlush(r);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }
}

package dev.ballast.netty.testing;

import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP/1.1 server for nginx to proxy to: it answers {@code 200 ok} after a fixed
 * delay, or holds every request until a number of them wait at once (then answers them all, and
 * any later one at once), which shows how many requests were in flight together.
 */
public final class HttpUpstream implements AutoCloseable {

  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger requests = new AtomicInteger();
  private final List<Channel> held = new ArrayList<>(); // guarded by itself
  private boolean opened; // guarded by held: the gate let its requests through
  private final int holdUntil;
  private final long delayNanos;

  private HttpUpstream(int holdUntil, Duration delay) throws InterruptedException {
    this.holdUntil = holdUntil;
    this.delayNanos = delay.toNanos();
    server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            children.add(ch);
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16),
                new SimpleChannelInboundHandler<HttpRequest>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, HttpRequest msg) {
                    requests.incrementAndGet();
                    onRequest(ctx.channel());
                  }
                });
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** Starts a server answering every request after {@code delay}. */
  public static HttpUpstream delayed(Duration delay) throws InterruptedException {
    return new HttpUpstream(0, delay);
  }

  /** Starts a server that answers nothing until {@code n} requests wait at once. */
  public static HttpUpstream holdingUntil(int n) throws InterruptedException {
    return new HttpUpstream(n, Duration.ZERO);
  }

  private void onRequest(Channel ch) {
    if (holdUntil == 0) {
      ch.eventLoop().schedule(() -> answer(ch), delayNanos, TimeUnit.NANOSECONDS);
      return;
    }
    List<Channel> release;
    synchronized (held) {
      if (opened) {
        release = List.of(ch);
      } else {
        held.add(ch);
        if (held.size() < holdUntil) {
          return;
        }
        opened = true;
        release = new ArrayList<>(held);
        held.clear();
      }
    }
    release.forEach(c -> c.eventLoop().execute(() -> answer(c)));
  }

  private static void answer(Channel ch) {
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
        Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
    r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2)
        .set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    ch.writeAndFlush(r);
  }

  /** Returns {@code 127.0.0.1:port}, as nginx's {@code proxy_pass} takes it. */
  public String hostPort() {
    return "127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** Returns how many requests arrived. */
  public int requests() {
    return requests.get();
  }

  /** Closes the server and its connections. */
  @Override
  public void close() throws InterruptedException {
    server.close().await(10, TimeUnit.SECONDS);
    children.close().await(10, TimeUnit.SECONDS);
  }
}

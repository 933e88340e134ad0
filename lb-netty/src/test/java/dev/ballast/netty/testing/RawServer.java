package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A loopback server that answers any bytes with fixed bytes: a backend that sends garbage. */
public final class RawServer implements AutoCloseable {

  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger accepted = new AtomicInteger();

  private RawServer(byte[] answer) throws InterruptedException {
    server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            accepted.incrementAndGet();
            children.add(ch);
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(answer));
              }
            });
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** Starts a server that answers every read with {@code answer}. */
  public static RawServer start(byte[] answer) throws InterruptedException {
    return new RawServer(answer);
  }

  /** Returns the endpoint {@code 127.0.0.1:port}. */
  public Endpoint endpoint() {
    return Endpoint.of("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
  }

  /** Returns the connections open now. */
  public int connections() {
    return children.size();
  }

  /** Returns the connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  @Override
  public void close() {
    server.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
    children.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
  }
}

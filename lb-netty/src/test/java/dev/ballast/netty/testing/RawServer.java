package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback server that answers any bytes with fixed bytes: a backend that sends garbage, or a
 * scripted misbehaving HTTP server. It counts the bytes it receives.
 */
public final class RawServer implements AutoCloseable {

  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicLong received = new AtomicLong();

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
                received.addAndGet(((ByteBuf) msg).readableBytes());
                ReferenceCountUtil.release(msg);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(answer));
              }
            });
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** Starts a server that answers every read with {@code answer} (ASCII). */
  public static RawServer start(String answer) throws InterruptedException {
    return new RawServer(answer.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
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

  /** Returns how many bytes the server has received so far, all connections together. */
  public long received() {
    return received.get();
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

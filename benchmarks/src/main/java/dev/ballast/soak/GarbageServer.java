package dev.ballast.soak;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A server that answers every read with garbage: random bytes, a frame header announcing 2 GiB,
 * or a response to a request id nobody sent; it stands in for a corrupted backend. Or, started
 * {@linkplain #resetting resetting}, one that resets every connection as soon as it accepts it
 * (SO_LINGER 0, then close): the client's connects succeed and die at once.
 */
final class GarbageServer implements AutoCloseable {

  private static final EventLoopGroup GROUP = new NioEventLoopGroup(1, r -> {
    Thread t = new Thread(r, "soak-garbage");
    t.setDaemon(true);
    return t;
  });

  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  private GarbageServer() {}

  /** Listens at {@code port} on 127.0.0.1; returns null if the port is taken. */
  static GarbageServer start(int port, long seed) {
    return start(port, seed, false);
  }

  /** Resets every connection at {@code port} on accept; returns null if the port is taken. */
  static GarbageServer resetting(int port) {
    return start(port, 0, true);
  }

  private static GarbageServer start(int port, long seed, boolean reset) {
    Random random = new Random(seed);
    GarbageServer server = new GarbageServer();
    ServerBootstrap b = new ServerBootstrap().group(GROUP).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            server.channels.add(ch);
            if (reset) {
              ch.config().setOption(io.netty.channel.ChannelOption.SO_LINGER, 0);
              ch.close();
              return;
            }
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                ctx.writeAndFlush(garbage(ctx, random));
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
              }
            });
          }
        });
    try {
      server.channels.add(b.bind("127.0.0.1", port).sync().channel());
      return server;
    } catch (Exception e) {
      return null;
    }
  }

  private static ByteBuf garbage(ChannelHandlerContext ctx, Random random) {
    ByteBuf out = ctx.alloc().buffer(64);
    switch (random.nextInt(3)) {
      case 0: // random bytes
        byte[] bytes = new byte[1 + random.nextInt(64)];
        random.nextBytes(bytes);
        out.writeBytes(bytes);
        break;
      case 1: // a frame header announcing 2 GiB (over any frame limit)
        out.writeInt(Integer.MAX_VALUE).writeByte(2).writeLong(1);
        break;
      default: // a well-formed response to a request id nobody sent
        out.writeInt(9 + 4).writeByte(2).writeLong(random.nextLong() | Long.MIN_VALUE)
            .writeInt(42);
        break;
    }
    return out;
  }

  @Override
  public void close() {
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}

package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A loopback server that resets every connection right after accepting it (SO_LINGER 0, then
 * close: the peer sees an RST) until it {@linkplain #recover() recovers}; from then on it hands
 * each new connection to the pipeline it was given.
 */
public final class ResettingServer implements AutoCloseable {

  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger resets = new AtomicInteger();
  private volatile boolean resetting = true;

  private ResettingServer(Consumer<ChannelPipeline> serve) throws InterruptedException {
    server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            children.add(ch);
            if (!resetting) {
              serve.accept(ch.pipeline());
              return;
            }
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                resets.incrementAndGet();
                ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
                ctx.close();
              }
            });
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** Starts a server resetting every connection; once recovered, it serves with {@code serve}. */
  public static ResettingServer start(Consumer<ChannelPipeline> serve)
      throws InterruptedException {
    return new ResettingServer(serve);
  }

  /** Returns the endpoint {@code 127.0.0.1:port}. */
  public Endpoint endpoint() {
    return Endpoint.of("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
  }

  /** Returns how many connections were reset so far. */
  public int resets() {
    return resets.get();
  }

  /** Serves every connection accepted from now on. */
  public void recover() {
    resetting = false;
  }

  @Override
  public void close() {
    server.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
    children.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
  }
}

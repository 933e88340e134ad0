package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A loopback server on the shared event loops whose accepted connections the test sets up (each
 * is handed to the initializer it was given); it counts and closes them. The base of the other
 * scripted servers here.
 */
public final class PipelineServer implements AutoCloseable {

  private final Channel server;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger accepted = new AtomicInteger();

  private PipelineServer(Consumer<Channel> init) throws InterruptedException {
    server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            accepted.incrementAndGet();
            children.add(ch);
            init.accept(ch);
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** Starts a server on 127.0.0.1 and an ephemeral port; {@code init} sets up each connection. */
  public static PipelineServer start(Consumer<Channel> init) throws InterruptedException {
    return new PipelineServer(init);
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

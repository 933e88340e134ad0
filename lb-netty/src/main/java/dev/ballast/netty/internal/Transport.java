package dev.ballast.netty.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The event-loop group shared by every client and server of the process, and the channel types
 * and socket options that go with it: native epoll when it loads (with TCP_NODELAY and
 * TCP_QUICKACK), NIO otherwise (TCP_NODELAY). Sized to the number of cores, as nginx and
 * twemproxy size their workers; its threads are daemons, so it never keeps a JVM alive.
 */
public final class Transport {

  private static final boolean EPOLL = epollWorks();

  private Transport() {}

  private static final class Shared {
    static final EventLoopGroup GROUP = newGroup(Runtime.getRuntime().availableProcessors(),
        "ballast-io");
  }

  // Epoll.isAvailable() loads the library; a library of another Netty version may load and
  // still miss methods, so probe one native class before trusting it.
  private static boolean epollWorks() {
    if (Boolean.getBoolean("ballast.netty.noEpoll")) {
      return false;
    }
    try {
      return Epoll.isAvailable()
          && Class.forName("io.netty.channel.unix.Errors", true, Transport.class.getClassLoader())
              != null;
    } catch (Throwable t) {
      return false;
    }
  }

  /** Returns the process-wide event-loop group, created on first use. */
  public static EventLoopGroup sharedGroup() {
    return Shared.GROUP;
  }

  /** Returns whether native epoll is in use. */
  public static boolean isEpoll() {
    return EPOLL;
  }

  /** Creates a new event-loop group of daemon threads of the preferred transport. */
  public static EventLoopGroup newGroup(int threads, String name) {
    DefaultThreadFactory tf = new DefaultThreadFactory(name, true);
    return new MultiThreadIoEventLoopGroup(threads, tf,
        EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
  }

  /** Configures a client bootstrap: channel type, TCP_NODELAY, TCP_QUICKACK under epoll. */
  public static Bootstrap configure(Bootstrap b, int connectTimeoutMillis) {
    b.option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis);
    if (EPOLL) {
      b.channel(EpollSocketChannel.class).option(EpollChannelOption.TCP_QUICKACK, true);
    } else {
      b.channel(NioSocketChannel.class);
    }
    return b;
  }

  /** Configures a server bootstrap: channel type and the same child options as clients. */
  public static ServerBootstrap configure(ServerBootstrap b) {
    b.childOption(ChannelOption.TCP_NODELAY, true).option(ChannelOption.SO_REUSEADDR, true);
    if (EPOLL) {
      b.channel(EpollServerSocketChannel.class)
          .childOption(EpollChannelOption.TCP_QUICKACK, true);
    } else {
      b.channel(NioServerSocketChannel.class);
    }
    return b;
  }
}

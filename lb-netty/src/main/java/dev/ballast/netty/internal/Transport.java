package dev.ballast.netty.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import jdk.net.ExtendedSocketOptions;

/**
 * The event-loop group shared by every client and server of the process, and the channel types
 * and socket options that go with a group: native epoll when the group is an epoll one, NIO
 * otherwise; TCP_NODELAY on both, and on client channels TCP_QUICKACK kept on (see {@link
 * #keepQuickAck}). The shared group is epoll when
 * Netty's native library loads ({@code netty-transport-native-epoll}, classifier {@code
 * linux-x86_64}, at the Netty version in use), NIO otherwise; the system property {@value
 * #PROPERTY} chooses: {@code auto} (the default), {@code nio}, or {@code epoll} (which fails
 * rather than fall back). The shared group is sized to the number of cores, as nginx and
 * twemproxy size their workers; its threads are daemons, so it never keeps a JVM alive.
 */
public final class Transport {

  /** The system property that chooses the shared group's transport: auto, epoll or nio. */
  public static final String PROPERTY = "ballast.netty.transport";

  private static final boolean EPOLL = choose(System.getProperty(PROPERTY, "auto"));
  // whether NIO channels can set TCP_QUICKACK (the JDK offers it on Linux)
  private static final boolean NIO_QUICKACK = nioQuickAck();

  private Transport() {}

  private static final class Shared {
    static final EventLoopGroup GROUP = newGroup(Runtime.getRuntime().availableProcessors(),
        "ballast-io");
  }

  /** Returns whether the shared group is epoll, for a value of {@value #PROPERTY}. */
  static boolean choose(String value) {
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "":
      case "auto":
        return epollLoads() == null;
      case "nio":
        return false;
      case "epoll":
        Throwable cause = epollLoads();
        if (cause != null) {
          throw new IllegalStateException(PROPERTY + ": epoll, but the native library did not"
              + " load (expected: netty-transport-native-epoll for this platform at the Netty"
              + " version in use): " + cause, cause);
        }
        return true;
      default:
        throw new IllegalArgumentException(
            PROPERTY + ": '" + value + "' (expected: auto, epoll or nio)");
    }
  }

  // Returns null when epoll works, else why not. Epoll.isAvailable() loads the library; a
  // library of another Netty version may load and still miss methods, so probe one native class.
  private static Throwable epollLoads() {
    try {
      if (!Epoll.isAvailable()) {
        return Epoll.unavailabilityCause();
      }
      Class.forName("io.netty.channel.unix.Errors", true, Transport.class.getClassLoader());
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  /** Returns the process-wide event-loop group, created on first use. */
  public static EventLoopGroup sharedGroup() {
    return Shared.GROUP;
  }

  /** Returns whether the shared group is native epoll. */
  public static boolean isEpoll() {
    return EPOLL;
  }

  /** Returns whether the group's event loops are native epoll ones. */
  public static boolean isEpoll(EventLoopGroup group) {
    return group instanceof IoEventLoopGroup g && g.isIoType(EpollIoHandler.class);
  }

  /** Creates a new event-loop group of daemon threads of the shared group's transport. */
  public static EventLoopGroup newGroup(int threads, String name) {
    DefaultThreadFactory tf = new DefaultThreadFactory(name, true);
    return new MultiThreadIoEventLoopGroup(threads, tf,
        EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
  }

  /**
   * Configures a client bootstrap on the group: the channel type of the group's transport,
   * TCP_NODELAY, SO_KEEPALIVE, the connect timeout, and TCP_QUICKACK under epoll.
   */
  public static Bootstrap configure(Bootstrap b, EventLoopGroup group, int connectTimeoutMillis) {
    b.group(group)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis);
    if (isEpoll(group)) {
      b.channel(EpollSocketChannel.class).option(EpollChannelOption.TCP_QUICKACK, true);
    } else {
      b.channel(NioSocketChannel.class);
    }
    return b;
  }

  /**
   * Keeps a client channel in quick-ACK mode: TCP_QUICKACK is set again after every read, on
   * epoll and on NIO where the JDK offers it (Linux). Linux leaves quick-ACK mode by itself once
   * the traffic looks interactive (request, answer, request...), which is every RPC connection,
   * so the option set once at connect is lost after a few calls; the socket then delays its ACKs
   * up to 40 ms, and a server that writes an answer in two pieces with Nagle's algorithm on
   * waits for that ACK before sending the second piece: 40 ms per call (the delayed-ACK stall
   * nginx and twemproxy users know). Costs one setsockopt per read. Call it from the channel's
   * initializer.
   */
  public static void keepQuickAck(Channel ch) {
    if (ch instanceof EpollSocketChannel || NIO_QUICKACK && ch instanceof NioSocketChannel) {
      ch.pipeline().addFirst(QuickAck.INSTANCE);
    }
  }

  private static boolean nioQuickAck() {
    try (SocketChannel probe = SocketChannel.open()) {
      return probe.supportedOptions().contains(ExtendedSocketOptions.TCP_QUICKACK);
    } catch (Throwable t) { // no jdk.net module, or no socket at all
      return false;
    }
  }

  @ChannelHandler.Sharable
  private static final class QuickAck extends ChannelInboundHandlerAdapter {
    static final QuickAck INSTANCE = new QuickAck();
    static final ChannelOption<Boolean> NIO = NioChannelOption.of(
        ExtendedSocketOptions.TCP_QUICKACK);

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      Channel ch = ctx.channel();
      try {
        if (ch instanceof EpollSocketChannel e) {
          e.config().setTcpQuickAck(true);
        } else {
          ch.config().setOption(NIO, true);
        }
      } catch (ChannelException e) {
        // the socket is closing; its close is reported on its own
      }
      ctx.fireChannelReadComplete();
    }
  }

  /** Configures a server bootstrap on the group: channel type and the clients' socket options. */
  public static ServerBootstrap configure(ServerBootstrap b, EventLoopGroup group) {
    b.group(group)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_REUSEADDR, true);
    if (isEpoll(group)) {
      b.channel(EpollServerSocketChannel.class)
          .childOption(EpollChannelOption.TCP_QUICKACK, true);
    } else {
      b.channel(NioServerSocketChannel.class);
    }
    return b;
  }
}

package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.pool.PoolConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

/**
 * Which transport the tests run on (the build runs them on epoll and again on NIO, chosen by the
 * {@code ballast.netty.transport} property), and the socket options of the client's channels.
 */
class TransportTest {

  @Test
  void sharedGroupIsTheTransportTheRunAskedFor() {
    String asked = System.getProperty(Transport.PROPERTY, "auto");
    System.out.println("TransportTest: " + Transport.PROPERTY + "=" + asked + ", shared group "
        + (Transport.isEpoll() ? "epoll" : "nio"));
    assertThat(Transport.isEpoll(Transport.sharedGroup())).isEqualTo(Transport.isEpoll());
    if (asked.equals("epoll")) {
      assertThat(Transport.isEpoll()).isTrue();
    } else if (asked.equals("nio")) {
      assertThat(Transport.isEpoll()).isFalse();
    }
  }

  @Test
  void clientChannelsHaveNoDelayAndStayInQuickAckMode() throws Exception {
    try (FramedServer server = FramedServer.start(FramedServer.echo())) {
      ConnectionPool<byte[], byte[]> pool = pool(server.endpoint());
      try {
        PooledConnection<byte[], byte[]> c = acquire(pool);
        Channel ch = c.channel;
        assertThat(ch).isInstanceOf(
            Transport.isEpoll() ? EpollSocketChannel.class : NioSocketChannel.class);
        assertThat(ch.config().getOption(ChannelOption.TCP_NODELAY)).isTrue();
        assertThat(quickAck(ch)).isNotEqualTo(Boolean.FALSE);
        // Linux leaves quick-ACK mode once traffic goes back and forth; the client re-arms it.
        for (int i = 0; i < 200; i++) {
          send(c, new byte[] {(byte) i}).get(10, TimeUnit.SECONDS);
        }
        if (Transport.isEpoll()) {
          assertThat(quickAck(ch)).as("TCP_QUICKACK after 200 calls").isTrue();
        } else {
          assertThat(quickAck(ch)).as("TCP_QUICKACK after 200 calls, where the JDK offers it")
              .isNotEqualTo(Boolean.FALSE);
        }
        pool.release(c, true);
      } finally {
        pool.close().get(10, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * A client's connections take its group's loops in turn, whoever else turns the group. On the
   * group's own turn, the pools' reapers alone (one timer per pool) put all four connections on
   * one of the two loops; so would a stranger turning the group between connects.
   */
  @Test
  void aClientsConnectionsSpreadOverItsLoopsWhateverElseUsesTheGroup() throws Exception {
    for (int strangers = 0; strangers <= 1; strangers++) {
      assertThat(connectionsPerLoop(strangers)).as("with %d other turn(s) of the group between "
          + "connects", strangers).containsExactly(2, 2);
    }
  }

  private static java.util.Collection<Integer> connectionsPerLoop(int strangers) throws Exception {
    EventLoopGroup group = Transport.newGroup(2, "spread-test");
    List<FramedServer> servers = new ArrayList<>();
    List<ConnectionPool<byte[], byte[]>> pools = new ArrayList<>();
    try {
      LoopSpread loops = new LoopSpread(group);
      Map<EventLoop, Integer> perLoop = new HashMap<>();
      for (int i = 0; i < 4; i++) {
        FramedServer server = FramedServer.start(FramedServer.echo());
        servers.add(server);
        ConnectionPool<byte[], byte[]> pool = pool(server.endpoint(), loops);
        pools.add(pool);
        PooledConnection<byte[], byte[]> c = acquire(pool);
        perLoop.merge(c.channel.eventLoop(), 1, Integer::sum);
        pool.release(c, true);
        for (int k = 0; k < strangers; k++) {
          group.next(); // somebody else's channel or timer
        }
      }
      return perLoop.values();
    } finally {
      for (ConnectionPool<byte[], byte[]> p : pools) {
        p.close().get(10, TimeUnit.SECONDS);
      }
      servers.forEach(FramedServer::close);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void aGroupOfOtherExecutorsIsRefusedNamingIt() {
    EventExecutorGroup executors = new DefaultEventExecutorGroup(1);
    EventLoopGroup pretending = new DefaultEventLoopGroup(1) {
      @Override
      public Iterator<EventExecutor> iterator() {
        return executors.iterator();
      }
    };
    try {
      assertThatThrownBy(() -> new LoopSpread(pretending))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("expected: a group of event loops, found");
    } finally {
      executors.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      pretending.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  // Read on the channel's event loop, after the read that completed the last call is handled;
  // null where the socket does not offer the option.
  private static Boolean quickAck(Channel ch) throws Exception {
    return ch.eventLoop().submit(() -> {
      if (ch instanceof EpollSocketChannel) {
        return ch.config().getOption(EpollChannelOption.TCP_QUICKACK);
      }
      return ch.config().getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_QUICKACK));
    }).get(10, TimeUnit.SECONDS);
  }

  private static ConnectionPool<byte[], byte[]> pool(Endpoint endpoint) {
    return pool(endpoint, new LoopSpread(Transport.sharedGroup()));
  }

  private static ConnectionPool<byte[], byte[]> pool(Endpoint endpoint, LoopSpread loops) {
    return new ConnectionPool<>(endpoint, PoolConfig.builder().build(),
        new FramedProtocol(FrameDecoder.DEFAULT_MAX_FRAME_SIZE, 16, null), loops,
        System::nanoTime, new SplittableRandom(1));
  }

  private static PooledConnection<byte[], byte[]> acquire(ConnectionPool<byte[], byte[]> pool)
      throws Exception {
    CompletableFuture<PooledConnection<byte[], byte[]>> f = new CompletableFuture<>();
    PooledConnection<byte[], byte[]> c = pool.acquireBefore(Long.MAX_VALUE, 1, (conn, e) -> {
      if (e != null) {
        f.completeExceptionally(e);
      } else {
        f.complete(conn);
      }
    });
    return c != null ? c : f.get(10, TimeUnit.SECONDS);
  }

  private static CompletableFuture<byte[]> send(PooledConnection<byte[], byte[]> c,
      byte[] request) {
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    c.dispatcher.send(request, new Exchange<>() {
      @Override
      public void onWritten() {}

      @Override
      public void onResponse(byte[] response) {
        f.complete(response);
      }

      @Override
      public void onFailure(Throwable cause) {
        f.completeExceptionally(cause);
      }
    });
    return f;
  }
}

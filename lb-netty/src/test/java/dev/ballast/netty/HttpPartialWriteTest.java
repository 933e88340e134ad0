package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.ConnectionClosedException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request of which a byte was written has reached the server: a large POST whose head the
 * server read before resetting the connection is not sent again, whatever the rest of the body.
 */
class HttpPartialWriteTest {

  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final AtomicInteger heads = new AtomicInteger();

  @AfterEach
  void stop() {
    channels.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
  }

  /** A server that reads a request's head, then resets the connection. */
  private Endpoint resettingAfterHead() throws InterruptedException {
    Channel server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            channels.add(ch);
            ch.pipeline().addLast(new HttpServerCodec(), new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof io.netty.handler.codec.http.HttpRequest && ctx.channel()
                    .isActive()) {
                  heads.incrementAndGet();
                  ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
                  ctx.close();
                }
                ReferenceCountUtil.release(msg);
              }
            });
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
    channels.add(server);
    return Endpoint.of("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
  }

  @Test
  void aPostCutOffAfterItsHeadRunsAtMostOnce() throws Exception {
    List<Endpoint> servers = List.of(resettingAfterHead(), resettingAfterHead(),
        resettingAfterHead());
    byte[] body = new byte[4 << 20];
    try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
        .endpoints(servers).timeout(Duration.ofSeconds(5)).maxAttempts(3).build()) {
      List<Throwable> failures = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        try {
          client.call(HttpRequest.of("POST", "/orders", body)).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failures.add(e.getCause());
        }
      }
      assertThat(failures).hasSize(5).allSatisfy(f -> assertThat(f)
          .isInstanceOf(ConnectionClosedException.class)
          .satisfies(c -> assertThat(((BallastException) c).reachedServer()).isTrue()));
      assertThat(heads.get()).isEqualTo(5);
      assertThat(client.callStats().retries()).isZero();
    }
  }
}

package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameEncoder;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.ResettingServer;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A server that resets every connection right after accepting it, then recovers: the pool's
 * connect callbacks run after their channel is gone and must still report back, so that the
 * same client's calls succeed once the server is back (within one connect timeout).
 */
class ConnectResetTest {

  private static final Duration CONNECT = Duration.ofSeconds(1);

  @Test
  void aConnectListenerRunningAfterItsChannelClosedStillReportsBack() throws Exception {
    try (ResettingServer server = ResettingServer.start(p -> { })) {
      Connector<byte[], byte[]> connector = new Connector<>(server.endpoint(),
          PoolConfig.builder().connectTimeout(CONNECT).build(),
          new FramedProtocol(FrameDecoder.DEFAULT_MAX_FRAME_SIZE, 16, null),
          new LoopSpread(Transport.sharedGroup()), System::nanoTime, new SplittableRandom(1));
      // A connection whose listener comes late: reset, closed and its pipeline emptied first.
      FramedProtocol protocol = new FramedProtocol(FrameDecoder.DEFAULT_MAX_FRAME_SIZE, 16, null);
      Endpoint ep = server.endpoint();
      Bootstrap b = Transport.configure(new Bootstrap(), Transport.sharedGroup(), 1000)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              protocol.init(ch.pipeline(), ep);
            }
          });
      // a connect that succeeded (NIO may see the reset while finishing the connect: again)
      ChannelFuture f = b.connect(ep.host(), ep.port()).awaitUninterruptibly();
      for (int i = 0; i < 100 && !f.isSuccess(); i++) {
        f = b.connect(ep.host(), ep.port()).awaitUninterruptibly();
      }
      assertThat(f.isSuccess()).as("a connect that succeeded").isTrue();
      ChannelFuture connected = f;
      f.channel().closeFuture().sync();
      Await.until(Duration.ofSeconds(5), () -> "pipeline still holds " + connected.channel()
          .pipeline(), () -> connected.channel().pipeline().first() == null);

      CompletableFuture<Throwable> heard = new CompletableFuture<>();
      f.channel().eventLoop().submit(() -> connector.connected(connected,
          (c, e) -> heard.complete(e))).sync();

      assertThat(heard.get(5, TimeUnit.SECONDS))
          .hasMessageContaining("connection closed by the server");
    }
  }

  @Test
  void framedClientRecoversFromResetsDuringConnect() throws Exception {
    recovers(BallastClient.framed(), ConnectResetTest::framedEcho,
        "hi".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void http1ClientRecoversFromResetsDuringConnect() throws Exception {
    recovers(BallastClient.http(), ConnectResetTest::http1Ok, HttpRequest.get("/"));
  }

  @Test
  void http2ClientRecoversFromResetsDuringConnect() throws Exception {
    recovers(BallastClient.http2(), ConnectResetTest::http2Ok, HttpRequest.get("/"));
  }

  private static <Req, Rep> void recovers(BallastClient.Builder<Req, Rep> builder,
      Consumer<ChannelPipeline> serve, Req request) throws Exception {
    try (ResettingServer server = ResettingServer.start(serve);
        BallastClient<Req, Rep> client = builder.endpoints(List.of(server.endpoint()))
            .pool(PoolConfig.builder().connectTimeout(CONNECT).maxConnections(2).build())
            .timeout(Duration.ofMillis(500)).build()) {
      // Many connects, many resets: each connect callback runs after its channel closed, or
      // during, or before; each must give its pool slot back.
      AtomicInteger failed = new AtomicInteger();
      for (int round = 0; round < 20; round++) {
        List<CompletableFuture<Rep>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          calls.add(client.call(request));
        }
        for (CompletableFuture<Rep> c : calls) {
          c.handle((r, e) -> e != null ? failed.incrementAndGet() : 0).get(5, TimeUnit.SECONDS);
        }
      }
      assertThat(server.resets()).isPositive();
      assertThat(failed.get()).isEqualTo(400);

      server.recover();
      Rep reply = client.call(request, CallOptions.DEFAULT.withTimeout(CONNECT))
          .get(5, TimeUnit.SECONDS);
      assertThat(reply).isNotNull();
      if (reply instanceof HttpResponse r) {
        assertThat(r.status()).isEqualTo(200);
      }
    }
  }

  private static void framedEcho(ChannelPipeline p) {
    p.addLast(new FrameDecoder(), new FrameEncoder(), new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame f = (Frame) msg;
        ctx.writeAndFlush(new Frame(Frame.RESPONSE, f.id(), f.payload()));
      }
    });
  }

  private static void http1Ok(ChannelPipeline p) {
    p.addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16),
        new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.OK, Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2);
            ctx.writeAndFlush(r);
          }
        });
  }

  private static void http2Ok(ChannelPipeline p) {
    p.addLast(Http2FrameCodecBuilder.forServer().build(), new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Http2FrameStream stream = msg instanceof Http2HeadersFrame h && h.isEndStream()
            ? h.stream() : msg instanceof Http2DataFrame d && d.isEndStream() ? d.stream() : null;
        if (stream != null) {
          ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200"))
              .stream(stream));
          ctx.writeAndFlush(new DefaultHttp2DataFrame(
              Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII), true).stream(stream));
        }
        ReferenceCountUtil.release(msg);
      }
    });
  }
}

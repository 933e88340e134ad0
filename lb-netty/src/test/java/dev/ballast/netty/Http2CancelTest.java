package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an abandoned HTTP/2 request does to its stream, seen from a real Netty HTTP/2 server on
 * 127.0.0.1 that holds {@code /hold} unanswered, answers anything else at once, and records the
 * streams it sees opened and reset (nginx cannot tell).
 */
class Http2CancelTest {

  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  // "channel-id path" per request, and "channel-id stream-id error" per RST_STREAM received
  private final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> resets = new LinkedBlockingQueue<>();
  private Channel server;
  private Endpoint endpoint;

  @BeforeEach
  void startServer() throws InterruptedException {
    server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            children.add(ch);
            ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Recorder());
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
    endpoint = Endpoint.of("127.0.0.1",
        ((InetSocketAddress) server.localAddress()).getPort());
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    server.close().sync();
    children.close().sync();
  }

  @Test
  void aRequestPastItsDeadlineIsResetWithCancelAndTheConnectionStays() throws Exception {
    try (BallastClient<HttpRequest, HttpResponse> client = client(Duration.ZERO)) {
      warmUp(client);
      assertThatThrownBy(() -> client.call(HttpRequest.get("/hold")).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(DeadlineExceededException.class);
      String held = next(requests, "the held request");
      String reset = next(resets, "a RST_STREAM for the held request");
      String connection = held.split(" ")[0];
      assertThat(reset).isEqualTo(connection + " 5 " + Http2Error.CANCEL.code());

      assertThat(client.call(HttpRequest.get("/ok")).get(10, TimeUnit.SECONDS).status())
          .isEqualTo(200);
      assertThat(next(requests, "the next request")).isEqualTo(connection + " /ok");
    }
  }

  @Test
  void aLateAnswerGivenUpResetsItsStreamAndRetiresTheConnection() throws Exception {
    try (BallastClient<HttpRequest, HttpResponse> client = client(Duration.ofMillis(200))) {
      warmUp(client);
      assertThatThrownBy(() -> client.call(HttpRequest.get("/hold")).get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(DeadlineExceededException.class);
      String connection = next(requests, "the held request").split(" ")[0];
      // kept for its late answer first, then given up
      assertThat(next(resets, "a RST_STREAM once the late answer is given up"))
          .isEqualTo(connection + " 5 " + Http2Error.CANCEL.code());

      // a new connection opens for it: connecting is not held to the 300 ms deadline either
      assertThat(client.call(HttpRequest.get("/ok"),
          CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(10))).get(10, TimeUnit.SECONDS)
          .status()).isEqualTo(200);
      assertThat(next(requests, "the next request")).doesNotStartWith(connection + " ")
          .endsWith(" /ok");
    }
  }

  /**
   * Opens the connection with one answered call first, so that the held request's 300 ms deadline
   * covers the request alone, not connecting too (on a loaded host that took longer). The
   * warm-up is stream 3, the held request stream 5.
   */
  private void warmUp(BallastClient<HttpRequest, HttpResponse> client) throws Exception {
    assertThat(client.call(HttpRequest.get("/ok"),
        CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(10))).get(10, TimeUnit.SECONDS)
        .status()).isEqualTo(200);
    assertThat(next(requests, "the warm-up request")).endsWith(" /ok");
  }

  private BallastClient<HttpRequest, HttpResponse> client(Duration lateAnswerWait) {
    return BallastClient.http2().endpoints(List.of(endpoint)).timeout(Duration.ofMillis(300))
        .lateAnswerWait(lateAnswerWait).build();
  }

  private static String next(BlockingQueue<String> queue, String what)
      throws InterruptedException {
    String s = queue.poll(10, TimeUnit.SECONDS);
    assertThat(s).as(what).isNotNull();
    return s;
  }

  /** Records requests and resets; answers every request but {@code /hold} with 200 at once. */
  private final class Recorder extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      String id = ctx.channel().id().asShortText();
      if (msg instanceof Http2HeadersFrame h) {
        String path = String.valueOf(h.headers().path());
        requests.add(id + " " + path);
        if (!path.equals("/hold")) {
          ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200"),
              true).stream(h.stream()));
        }
      } else if (msg instanceof Http2ResetFrame r) {
        resets.add(id + " " + r.stream().id() + " " + r.errorCode());
      }
      ReferenceCountUtil.release(msg);
    }
  }
}

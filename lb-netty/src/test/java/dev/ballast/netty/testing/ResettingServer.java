package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A loopback server that resets every connection right after accepting it (SO_LINGER 0, then
 * close: the peer sees an RST) until it {@linkplain #recover() recovers}; from then on it hands
 * each new connection to the pipeline it was given.
 */
public final class ResettingServer implements AutoCloseable {

  private final AtomicInteger resets = new AtomicInteger();
  private volatile boolean resetting = true;
  private final PipelineServer server;

  private ResettingServer(Consumer<ChannelPipeline> serve) throws InterruptedException {
    server = PipelineServer.start(ch -> {
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
    });
  }

  /** Starts a server resetting every connection; once recovered, it serves with {@code serve}. */
  public static ResettingServer start(Consumer<ChannelPipeline> serve)
      throws InterruptedException {
    return new ResettingServer(serve);
  }

  /** Returns the endpoint {@code 127.0.0.1:port}. */
  public Endpoint endpoint() {
    return server.endpoint();
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
    server.close();
  }
}

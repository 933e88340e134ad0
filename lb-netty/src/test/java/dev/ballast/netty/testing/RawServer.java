package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback server that answers any bytes with fixed bytes: a backend that sends garbage, or a
 * scripted misbehaving HTTP server. It counts the bytes it receives.
 */
public final class RawServer implements AutoCloseable {

  private final AtomicLong received = new AtomicLong();
  private final PipelineServer server;

  private RawServer(byte[] answer) throws InterruptedException {
    server = PipelineServer.start(ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        received.addAndGet(((ByteBuf) msg).readableBytes());
        ReferenceCountUtil.release(msg);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(answer));
      }
    }));
  }

  /** Starts a server that answers every read with {@code answer} (ASCII). */
  public static RawServer start(String answer) throws InterruptedException {
    return new RawServer(answer.getBytes(StandardCharsets.US_ASCII));
  }

  /** Starts a server that answers every read with {@code answer}. */
  public static RawServer start(byte[] answer) throws InterruptedException {
    return new RawServer(answer);
  }

  /** Returns the endpoint {@code 127.0.0.1:port}. */
  public Endpoint endpoint() {
    return server.endpoint();
  }

  /** Returns the connections open now. */
  public int connections() {
    return server.connections();
  }

  /** Returns how many bytes the server has received so far, all connections together. */
  public long received() {
    return received.get();
  }

  /** Returns the connections accepted so far. */
  public int accepted() {
    return server.accepted();
  }

  @Override
  public void close() {
    server.close();
  }
}

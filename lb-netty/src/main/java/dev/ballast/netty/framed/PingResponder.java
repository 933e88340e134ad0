package dev.ballast.netty.framed;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * Answers a client's {@link Frame#PING} before the handler sees it: a ping with the same id while
 * the server is serving, else an {@link Frame#ERROR} saying it is not; passes every other frame on.
 * Shared by a server's connections.
 */
@ChannelHandler.Sharable
final class PingResponder extends ChannelInboundHandlerAdapter {

  private static final byte[] EMPTY = new byte[0];
  private static final byte[] NOT_SERVING = "not serving".getBytes(StandardCharsets.UTF_8);

  private final BooleanSupplier serving;

  PingResponder(BooleanSupplier serving) {
    this.serving = serving;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Frame f && f.type() == Frame.PING) {
      boolean up = serving.getAsBoolean();
      ctx.writeAndFlush(new Frame(up ? Frame.PING : Frame.ERROR, f.id(), up ? EMPTY : NOT_SERVING));
      return;
    }
    ctx.fireChannelRead(msg);
  }
}

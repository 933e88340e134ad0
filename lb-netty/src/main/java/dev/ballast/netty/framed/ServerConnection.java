package dev.ballast.netty.framed;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FramedServer}'s side of one connection: answers its requests; counts the bytes it
 * holds (requests being handled, answers and their load reports not yet written) and reads
 * only while they are within bounds and the channel is writable. Event loop only, but for the
 * handler's futures, which complete anywhere.
 */
final class ServerConnection extends SimpleChannelInboundHandler<Frame> {
  private final FramedServer.Handler handler;
  private final long maxHeldBytes;
  private final AtomicLong requests;
  private final ServerLoad load; // null: no reports
  private long held;
  // The report last sent on this connection, and when: a report goes out when it is a new
  // sample or a second old, not with every answer (event loop only).
  private byte[] sentReport;
  private long sentAt;

  private static final long RESEND_NANOS = 1_000_000_000L;

  ServerConnection(FramedServer.Handler handler, long maxHeldBytes, AtomicLong requests,
      ServerLoad load) {
    this.handler = handler;
    this.maxHeldBytes = maxHeldBytes;
    this.requests = requests;
    this.load = load;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    if (frame.type() != Frame.REQUEST) {
      exceptionCaught(ctx, new MalformedFrameException(
          "frame type: " + frame.type() + " (expected: 1, a request)"));
      return;
    }
    requests.incrementAndGet();
    long id = frame.id();
    Channel ch = ctx.channel();
    int requestBytes = frame.payload().length;
    held += requestBytes;
    updateReading(ch);
    CompletableFuture<byte[]> answer;
    try {
      answer = Objects.requireNonNull(handler.handle(new FramedServer.Request(frame.payload(), ch)),
          "handler returned null");
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((payload, error) -> {
      if (ch.eventLoop().inEventLoop()) {
        answer(ch, id, requestBytes, payload, error);
      } else {
        ch.eventLoop().execute(() -> answer(ch, id, requestBytes, payload, error));
      }
    });
  }

  private void answer(Channel ch, long id, int requestBytes, byte[] payload, Throwable error) {
    if (!ch.isActive()) {
      return;
    }
    Frame reply = error == null
        ? new Frame(Frame.RESPONSE, id, payload)
        : new Frame(Frame.ERROR, id, String.valueOf(error.getMessage())
            .getBytes(StandardCharsets.UTF_8));
    int replyBytes = reply.payload().length;
    held += replyBytes;
    if (load != null) {
      load.answered(error != null);
      byte[] report = (id & Frame.ASKS_LOAD_REPORT) != 0 ? load.report() : null;
      if (report != null) {
        long now = System.nanoTime();
        if (report != sentReport || now - sentAt >= RESEND_NANOS) {
          sentReport = report;
          sentAt = now;
          // just before the answer: the client reads it with the answer; held with it
          ch.write(new Frame(Frame.LOAD_REPORT, id, report), ch.voidPromise());
          replyBytes += report.length;
          held += report.length;
        }
      }
    }
    int written = replyBytes;
    ch.writeAndFlush(reply).addListener(f -> {
      held -= requestBytes + written;
      updateReading(ch);
    });
  }

  /** The bytes held now: requests being handled, answers and reports not yet written. */
  long held() {
    return held;
  }

  private void updateReading(Channel ch) {
    boolean read = ch.isWritable() && held <= maxHeldBytes;
    if (ch.config().isAutoRead() != read) {
      ch.config().setAutoRead(read); // turned on, it asks for the next read itself
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateReading(ctx.channel());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}

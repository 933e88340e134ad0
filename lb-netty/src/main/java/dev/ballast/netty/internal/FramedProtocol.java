package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameEncoder;
import dev.ballast.netty.framed.FrameTooLargeException;
import dev.ballast.netty.framed.MalformedFrameException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** The framed protocol on the client side: many requests per connection, matched by id. */
public final class FramedProtocol implements Protocol<byte[], byte[]> {

  private final int maxFrameSize;
  private final int maxInFlight;
  private final FrameEncoder encoder;
  private final SslContext tls;

  /**
   * Creates the protocol with a maximum frame size and a per-connection in-flight cap, over TLS
   * when {@code tls} is not null.
   */
  public FramedProtocol(int maxFrameSize, int maxInFlight, SslContext tls) {
    this.maxFrameSize = maxFrameSize;
    this.maxInFlight = maxInFlight;
    this.encoder = new FrameEncoder(maxFrameSize);
    this.tls = tls;
  }

  @Override
  public SslContext tls() {
    return tls;
  }

  @Override
  public Dispatcher<byte[], byte[]> init(ChannelPipeline pipeline, Endpoint endpoint) {
    FramedDispatcher d = new FramedDispatcher();
    pipeline.addLast(new FrameDecoder(maxFrameSize), encoder, d);
    return d;
  }

  @Override
  public int maxInFlightPerConnection() {
    return maxInFlight;
  }

  @Override
  public ResponseClassifier<byte[], byte[]> classifier() {
    return ResponseClassifier.framed();
  }

  final class FramedDispatcher extends Dispatcher<byte[], byte[]> {
    private final ConcurrentHashMap<Long, Exchange<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong lastId = new AtomicLong();
    private final ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private volatile Channel channel;
    private volatile Throwable failure;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      channel = ctx.channel();
    }

    @Override
    public long send(byte[] request, Exchange<byte[]> exchange) {
      long id = lastId.incrementAndGet();
      pending.put(id, exchange);
      Channel ch = channel;
      Throwable f = failure;
      if (f != null || !ch.isActive()) {
        if (pending.remove(id) != null) {
          exchange.onFailure(f != null ? f : new ClosedChannelException());
        }
        return id;
      }
      Frame frame = new Frame(Frame.REQUEST, id, request);
      if (frame.frameLength() > maxFrameSize) {
        // Refused before the channel sees it, so that one oversized request cannot break the
        // connection that other requests share.
        if (pending.remove(id) != null) {
          exchange.onFailure(new FrameTooLargeException(frame.frameLength(), maxFrameSize));
        }
        return id;
      }
      // Requests from any thread join a queue that one event-loop task writes and flushes as
      // a batch: one task, one wake-up and one flush (syscall) for many requests, where
      // writeAndFlush from outside the loop costs a task and a flush each.
      writes.add(new Write(frame, exchange));
      if (!flushScheduled.get() && flushScheduled.compareAndSet(false, true)) {
        ch.eventLoop().execute(this::drain);
      }
      return id;
    }

    private void drain() {
      flushScheduled.set(false);
      Channel ch = channel;
      if (!ch.isActive()) {
        // Never written: channelInactive fails them (or already did) as unwritten.
        writes.clear();
        return;
      }
      boolean wrote = false;
      for (Write w; (w = writes.poll()) != null; ) {
        // Marked written when handed to the channel: if the write then fails, the request
        // counts as possibly delivered (never retried unless idempotent), the safe side.
        w.exchange.onWritten();
        // A failed write fires exceptionCaught, which fails every request of the connection.
        ch.write(w.frame, ch.voidPromise());
        wrote = true;
      }
      if (wrote) {
        ch.flush();
      }
    }

    /** One queued request. */
    private static final class Write {
      final Frame frame;
      final Exchange<byte[]> exchange;

      Write(Frame frame, Exchange<byte[]> exchange) {
        this.frame = frame;
        this.exchange = exchange;
      }
    }

    @Override
    public void cancel(long token) {
      pending.remove(token);
    }

    @Override
    public boolean keepsLateAnswers() {
      return true;
    }

    @Override
    public boolean isPoisoned() {
      return failure != null || !channel.isActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame frame = (Frame) msg;
      long id = frame.id();
      if (frame.type() == Frame.REQUEST) {
        fail(ctx, new MalformedFrameException("frame type: 1 (expected: 2 or 3, a response)"));
        return;
      }
      Exchange<byte[]> ex = pending.remove(id);
      if (ex == null) {
        if (id <= 0 || id > lastId.get()) {
          fail(ctx, new MalformedFrameException(
              "response id: " + id + " (expected: an id this connection sent, 1-" + lastId.get()
                  + ")"));
        }
        // else: the answer to a request cancelled after its caller gave up; dropped.
        return;
      }
      if (frame.type() == Frame.RESPONSE) {
        ex.onResponse(frame.payload());
      } else {
        ex.onFailure(new RemoteError(new String(frame.payload(), StandardCharsets.UTF_8)));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(ctx, cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      Throwable f = failure;
      failAll(f != null ? f : new ClosedChannelException());
      ctx.fireChannelInactive();
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
      if (failure == null) {
        failure = cause;
      }
      failAll(cause);
      ctx.close();
    }

    private void failAll(Throwable cause) {
      for (Long id : pending.keySet()) {
        Exchange<byte[]> ex = pending.remove(id);
        if (ex != null) {
          ex.onFailure(cause);
        }
      }
    }
  }
}

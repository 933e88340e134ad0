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
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.internal.PlatformDependent;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** The framed protocol on the client side: many requests per connection, matched by id. */
public final class FramedProtocol implements Protocol<byte[], byte[]> {

  // the write queue's slots come in chunks of this many, reused once the queue is drained
  private static final int WRITES_CHUNK = 128;
  private static final int MAX_WRITES = 1 << 30;

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

  /** Returns the largest frame this client reads or writes, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
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

  /**
   * Requests from any thread join a multi-producer queue; one event-loop task writes them as a
   * batch and registers them in the id map, which only the event loop touches (so a primitive
   * map, with no boxed ids and no entry objects).
   */
  final class FramedDispatcher extends Dispatcher<byte[], byte[]> {
    // event loop only
    private final LongObjectHashMap<Exchange<byte[]>> pending = new LongObjectHashMap<>();
    private final AtomicLong lastId = new AtomicLong();
    // many producers, the event loop consumes; an array queue that reuses its slots
    private final Queue<Write> writes = PlatformDependent.newMpscQueue(WRITES_CHUNK, MAX_WRITES);
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
      Channel ch = channel;
      Throwable f = failure;
      if (f != null || !ch.isActive()) {
        exchange.onFailure(f != null ? f : new ClosedChannelException());
        return id;
      }
      // asks for a load report in the id's top bit, which servers that know none echo as is
      Frame frame = new Frame(Frame.REQUEST,
          exchange.wantsLoadReport() ? id | Frame.ASKS_LOAD_REPORT : id, request);
      if (frame.frameLength() > maxFrameSize) {
        // Refused before the channel sees it, so that one oversized request cannot break the
        // connection that other requests share.
        exchange.onFailure(new FrameTooLargeException(frame.frameLength(), maxFrameSize));
        return id;
      }
      // One task, one wake-up and one flush (syscall) for many requests, where writeAndFlush
      // from outside the loop costs a task and a flush each.
      if (!writes.offer(new Write(frame, exchange))) {
        exchange.onFailure(new IllegalStateException(
            "write queue full: " + MAX_WRITES + " requests (expected: fewer)"));
        return id;
      }
      if (!flushScheduled.get() && flushScheduled.compareAndSet(false, true)) {
        try {
          ch.eventLoop().execute(this::drain);
        } catch (RejectedExecutionException e) {
          // the loop is shut down, the channel with it: what is queued was never written
          for (Write w; (w = writes.poll()) != null; ) {
            w.exchange.onFailure(new ClosedChannelException());
          }
        }
      }
      return id;
    }

    private void drain() {
      flushScheduled.set(false);
      Channel ch = channel;
      Throwable f = failure;
      if (f != null || !ch.isActive()) {
        // Never written, never registered: they fail here, as unwritten.
        Throwable cause = f != null ? f : new ClosedChannelException();
        for (Write w; (w = writes.poll()) != null; ) {
          w.exchange.onFailure(cause);
        }
        return;
      }
      boolean wrote = false;
      for (Write w; (w = writes.poll()) != null; ) {
        pending.put(w.frame.id() & ~Frame.ASKS_LOAD_REPORT, w.exchange);
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
      // A task even on the loop, and it drains first: the request is in the queue (its send
      // happened before this cancel), but the drain that would register it may not be scheduled
      // yet (another sender set the flag and has not yet handed the drain to the loop).
      try {
        channel.eventLoop().execute(() -> {
          drain();
          pending.remove(token);
        });
      } catch (RejectedExecutionException e) {
        // the loop is shut down: the map goes with the connection
      }
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
      long id = frame.id() & ~Frame.ASKS_LOAD_REPORT;
      if (frame.type() == Frame.LOAD_REPORT) {
        // never fatal: a report for no request waiting (given up, or never sent) or longer than
        // a report may be is dropped, a bad one is counted by the balancer that reads it
        Exchange<byte[]> ex = pending.get(id);
        if (ex != null && frame.payload().length <= Frame.MAX_LOAD_REPORT_BYTES) {
          ex.onLoadReport(frame.payload());
        }
        return;
      }
      if (frame.type() != Frame.RESPONSE && frame.type() != Frame.ERROR) {
        fail(ctx, new MalformedFrameException(
            "frame type: " + frame.type() + " (expected: 2 or 3, a response)"));
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
      if (pending.isEmpty()) {
        return;
      }
      @SuppressWarnings("unchecked")
      Exchange<byte[]>[] all = pending.values().toArray(new Exchange[0]);
      pending.clear();
      RuntimeException thrown = null;
      for (Exchange<byte[]> ex : all) {
        try {
          ex.onFailure(cause); // every request hears it, even if one callback throws
        } catch (RuntimeException e) {
          if (thrown == null) {
            thrown = e;
          } else {
            thrown.addSuppressed(e);
          }
        }
      }
      if (thrown != null) {
        throw thrown;
      }
    }
  }
}

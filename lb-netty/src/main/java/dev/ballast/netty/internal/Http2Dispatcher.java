package dev.ballast.netty.internal;

import dev.ballast.netty.http.Headers;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLHandshakeException;

/**
 * One HTTP/2 connection: each request is a stream. Requests from any thread join a queue that
 * one event-loop task writes and flushes as a batch (as the framed protocol does); everything
 * else runs on the event loop. A stream's answer is its final HEADERS (interim 1xx skipped) and
 * DATA up to the body limit (past it, only that stream is reset). A GOAWAY makes the connection
 * take no new streams: those at or below its last stream id finish, and those above it, as well
 * as those reset with REFUSED_STREAM, fail as {@linkplain Refused refused unprocessed}, which
 * the client retries elsewhere whatever the method. The connection then drains and the pool
 * closes it. A cancelled request's stream is reset with CANCEL; the connection stays.
 */
final class Http2Dispatcher extends Dispatcher<HttpRequest, HttpResponse> {


  private final Http2Protocol protocol;
  private final String authority;
  private final Listener listener = new Listener();
  private final ConcurrentLinkedQueue<RequestStream> writes = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final AtomicLong tokens = new AtomicLong();
  // event loop only
  private final IntObjectHashMap<RequestStream> byId = new IntObjectHashMap<>();
  private final LongObjectHashMap<RequestStream> byToken = new LongObjectHashMap<>();
  private Http2ConnectionHandler h2;
  private ChannelHandlerContext h2ctx;
  private Promise<Void> settings;
  // read from any thread
  private volatile Channel channel;
  private volatile Throwable failure;
  private volatile int goAwayLastStreamId = -1; // -1: no GOAWAY received
  private volatile int serverMaxStreams = Integer.MAX_VALUE;

  Http2Dispatcher(Http2Protocol protocol, String authority) {
    this.protocol = protocol;
    this.authority = authority;
  }

  Http2FrameListener listener() {
    return listener;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    h2 = ctx.pipeline().get(Http2ConnectionHandler.class);
    h2ctx = ctx.pipeline().context(h2);
    settings = ctx.newPromise();
    h2.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        streamClosed(stream.id());
      }
    });
  }

  /** A stream closed (reset, GOAWAY, connection closed): a request still on it fails. */
  private void streamClosed(int id) {
    RequestStream s = remove(id);
    if (s != null) {
      int last = goAwayLastStreamId;
      Throwable f = failure;
      s.exchange.onFailure(last >= 0 && id > last
          ? new Refused("stream " + id + " above the last stream id " + last
              + " of the server's GOAWAY")
          : f != null ? f : new ClosedChannelException());
    }
  }

  @Override
  public Future<?> ready(Channel ch) {
    SslHandler ssl = ch.pipeline().get(SslHandler.class);
    String alpn = ssl == null ? "h2" : ssl.applicationProtocol();
    if (!"h2".equals(alpn)) {
      return ch.newFailedFuture(new SSLHandshakeException("the server chose "
          + (alpn == null ? "no protocol" : alpn) + " by ALPN (expected: h2)"));
    }
    return settings; // the server's first SETTINGS: its limits are known
  }

  @Override
  public int maxInFlight() {
    return serverMaxStreams;
  }

  @Override
  public boolean keepsLateAnswers() {
    return true;
  }

  @Override
  public boolean isPoisoned() {
    return failure != null || goAwayLastStreamId >= 0 || !channel.isActive();
  }

  @Override
  public long send(HttpRequest request, Exchange<HttpResponse> exchange) {
    long token = tokens.incrementAndGet();
    if (isPoisoned()) {
      exchange.onFailure(notSent(null));
      return token;
    }
    writes.add(new RequestStream(this, request, exchange, token));
    if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
      try {
        channel.eventLoop().execute(this::drain);
      } catch (RejectedExecutionException e) {
        // the loop is shut down, the channel with it: what is queued was never written
        for (RequestStream s; (s = writes.poll()) != null; ) {
          s.exchange.onFailure(new ClosedChannelException());
        }
      }
    }
    return token;
  }

  private void drain() {
    drainScheduled.set(false);
    boolean wrote = false;
    for (RequestStream s; (s = writes.poll()) != null; ) {
      wrote |= write(s);
    }
    if (wrote) {
      channel.flush();
    }
  }

  /** Opens the stream and writes the request, unless the connection cannot take it. */
  private boolean write(RequestStream s) {
    Http2Connection.Endpoint<?> local = h2.connection().local();
    if (isPoisoned()) {
      s.exchange.onFailure(notSent(null)); // never written: retried elsewhere
      return false;
    }
    if (!local.canOpenStream()) { // the server lowered its limit below the streams open
      s.exchange.onFailure(new Refused("the server's limit of " + local.maxActiveStreams()
          + " concurrent streams is reached"));
      return false;
    }
    int id = local.incrementAndGetNextStreamId();
    if (id <= 0) { // stream ids exhausted: this connection is done
      failure = new ClosedChannelException();
      s.exchange.onFailure(failure);
      return false;
    }
    s.id = id;
    byId.put(id, s);
    byToken.put(s.token, s);
    s.exchange.onWritten();
    byte[] body = s.request.body();
    h2.encoder().writeHeaders(h2ctx, id, protocol.headers(s.request, authority), 0,
        body.length == 0, h2ctx.newPromise().addListener(s));
    if (body.length > 0) {
      h2.encoder().writeData(h2ctx, id, Unpooled.wrappedBuffer(body), 0, true,
          h2ctx.newPromise().addListener(s));
    }
    return true;
  }

  @Override
  public void cancel(long token) {
    // after the drain that wrote the stream: tasks run in order
    try {
      channel.eventLoop().execute(() -> {
        RequestStream s = byToken.remove(token);
        if (s != null) {
          byId.remove(s.id);
          h2.resetStream(h2ctx, s.id, Http2Error.CANCEL.code(), h2ctx.newPromise());
          channel.flush();
        }
      });
    } catch (RejectedExecutionException e) {
      // the loop is shut down: the streams go with the connection
    }
  }

  private RequestStream remove(int id) {
    RequestStream s = byId.remove(id);
    if (s != null) {
      byToken.remove(s.token);
    }
    return s;
  }

  /** Resets a stream whose answer is unacceptable; the connection stays. */
  private void resetAndFail(RequestStream s, Http2Error code, Throwable cause) {
    remove(s.id);
    h2.resetStream(h2ctx, s.id, code.code(), h2ctx.newPromise());
    s.exchange.onFailure(cause);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
    failAll(cause);
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Throwable f = failure;
    failAll(f != null ? f : new ClosedChannelException());
    ctx.fireChannelInactive();
  }

  /**
   * Why a request that got no stream fails: after the server's GOAWAY it is {@linkplain Refused
   * refused} (retried at once, whatever its method), else the connection's failure or closing.
   */
  private Throwable notSent(Throwable cause) {
    if (goAwayLastStreamId >= 0) {
      return new Refused("not sent: the server is closing the connection (GOAWAY)");
    }
    return cause != null ? cause : new ClosedChannelException();
  }

  private void failAll(Throwable cause) {
    settings.tryFailure(cause);
    for (RequestStream s; (s = writes.poll()) != null; ) {
      s.exchange.onFailure(notSent(cause));
    }
    for (RequestStream s : new ArrayList<>(byId.values())) {
      remove(s.id);
      s.exchange.onFailure(cause);
    }
  }

  /** A write of stream {@code s} failed: it fails, if it has not ended. */
  void writeFailed(RequestStream s, Throwable cause) {
    if (byId.get(s.id) == s) {
      remove(s.id);
      s.exchange.onFailure(cause);
    }
  }

  /** The frames and stream events the HTTP/2 codec reports, on the event loop. */
  private final class Listener extends Http2FrameAdapter {

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings s) {
      Long max = s.maxConcurrentStreams();
      if (max != null) {
        serverMaxStreams = (int) Math.min(Integer.MAX_VALUE, max);
      }
      settings.trySuccess(null);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers,
        int streamDependency, short weight, boolean exclusive, int padding, boolean endOfStream) {
      onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers,
        int padding, boolean endOfStream) {
      RequestStream s = byId.get(streamId);
      if (s == null) {
        return; // cancelled
      }
      if (s.status == 0) { // else trailers, which the response does not carry
        int status = RequestStream.status(headers.status());
        if (status < 100 || status == 101 || (status < 200 && endOfStream)) {
          resetAndFail(s, Http2Error.PROTOCOL_ERROR, new CorruptedFrameException(
              "bad HTTP/2 response: :status " + headers.status()));
          return;
        }
        if (status < 200) {
          return; // interim (100 Continue, 103 Early Hints): the final answer follows
        }
        try {
          s.headers = Http2Protocol.fields(headers);
        } catch (IllegalArgumentException e) {
          resetAndFail(s, Http2Error.PROTOCOL_ERROR,
              new CorruptedFrameException("bad HTTP/2 response: " + e.getMessage(), e));
          return;
        }
        s.status = status;
      }
      if (endOfStream) {
        remove(streamId);
        s.exchange.onResponse(s.response());
      } else if (s.exchange.statusOnly()) { // the body is not wanted: not read, not held
        remove(streamId);
        h2.resetStream(h2ctx, streamId, Http2Error.CANCEL.code(), h2ctx.newPromise());
        s.exchange.onResponse(s.response());
      }
    }

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
        boolean endOfStream) {
      int processed = data.readableBytes() + padding; // returned to the flow-control window
      RequestStream s = byId.get(streamId);
      if (s == null) {
        return processed;
      }
      int max = protocol.maxContentLength;
      if (s.status == 0) {
        resetAndFail(s, Http2Error.PROTOCOL_ERROR,
            new CorruptedFrameException("bad HTTP/2 response: DATA before HEADERS"));
      } else if (!s.append(data, max)) {
        resetAndFail(s, Http2Error.CANCEL, new TooLongFrameException("response body: more than "
            + max + " bytes (expected: at most maxFrameSize)"));
      } else if (endOfStream) {
        remove(streamId);
        s.exchange.onResponse(s.response());
      }
      return processed;
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      RequestStream s = remove(streamId);
      if (s != null) {
        s.exchange.onFailure(errorCode == Http2Error.REFUSED_STREAM.code()
            ? new Refused("stream reset with REFUSED_STREAM")
            : new RemoteError("stream reset with " + Http2Error.valueOf(errorCode)
                + " (code " + errorCode + ")"));
      }
    }

    @Override
    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode,
        ByteBuf debugData) {
      // before the codec closes the streams above it (onStreamClosed)
      goAwayLastStreamId = lastStreamId;
    }

  }
}

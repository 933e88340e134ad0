package dev.ballast.bench.netty;

import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.collection.IntObjectHashMap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The HTTP/2 side of {@link HttpStackCostBenchmark}: h2c echo backends, and the raw baseline of
 * one h2c connection per backend with the codec {@code BallastClient.http2()} uses (Netty's
 * {@code Http2ConnectionHandler} with a frame listener, the same initial settings) and the same
 * write batching (streams queued from any thread, written by one event-loop task that flushes
 * once per batch); each call is a stream on the next connection in turn.
 */
final class RawHttp2 implements HttpStackCostBenchmark.RawClient {

  private final List<RawConnection> connections = new ArrayList<>();

  RawHttp2(EventLoopGroup group, List<Channel> servers) throws Exception {
    for (Channel s : servers) {
      connections.add(new RawConnection(group, (InetSocketAddress) s.localAddress()));
    }
  }

  @Override
  public CompletableFuture<byte[]> call(int i, byte[] body) {
    return connections.get(i % connections.size()).call(body);
  }

  @Override
  public void close() {
    connections.forEach(RawConnection::close);
  }

  /** Starts an h2c server answering each request with its body; its codec flushes per read. */
  static Channel echoServer(EventLoopGroup group) throws InterruptedException {
    return Transport.configure(new ServerBootstrap(), group)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            Echo echo = new Echo();
            Http2ConnectionHandler h = new Http2ConnectionHandlerBuilder().server(true)
                .frameListener(echo).build();
            echo.encoder = h.encoder();
            ch.pipeline().addLast(h);
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  private static final class Echo extends Http2FrameAdapter {
    Http2ConnectionEncoder encoder;

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
        boolean endOfStream) {
      if (endOfStream) {
        encoder.writeHeaders(ctx, streamId, new DefaultHttp2Headers().status("200")
            .setInt("content-length", data.readableBytes()), 0, false, ctx.newPromise());
        encoder.writeData(ctx, streamId, data.retainedDuplicate(), 0, true, ctx.newPromise());
      }
      return data.readableBytes() + padding;
    }
  }

  /**
   * One h2c connection with the client's codec and settings, a queue of streams to open that
   * one event-loop task writes and flushes as a batch, and the calls by stream id.
   */
  static final class RawConnection extends Http2FrameAdapter {
    private final Channel channel;
    private final Http2ConnectionHandler h2;
    private final ChannelHandlerContext h2ctx;
    private final String authority;
    private final CompletableFuture<Void> settings = new CompletableFuture<>();
    private final ConcurrentLinkedQueue<Pending> writes = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final IntObjectHashMap<CompletableFuture<byte[]>> byId = new IntObjectHashMap<>();

    record Pending(byte[] body, CompletableFuture<byte[]> future) {}

    RawConnection(EventLoopGroup group, InetSocketAddress address) throws Exception {
      authority = address.getHostString() + ":" + address.getPort();
      h2 = new Http2ConnectionHandlerBuilder()
          .connection(new DefaultHttp2Connection(false))
          .frameListener(this)
          .initialSettings(Http2Settings.defaultSettings().pushEnabled(false)
              .maxHeaderListSize(8192))
          .build();
      channel = Transport.configure(new Bootstrap(), group, 2000)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              Transport.keepQuickAck(ch); // as the stack's channels
              ch.pipeline().addLast(h2);
            }
          })
          .connect(address).sync().channel();
      h2ctx = channel.pipeline().context(h2);
      settings.get(5, TimeUnit.SECONDS); // as the stack, which waits for the server's SETTINGS
    }

    CompletableFuture<byte[]> call(byte[] body) {
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      writes.add(new Pending(body, f));
      if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
        channel.eventLoop().execute(this::drain);
      }
      return f;
    }

    private void drain() {
      scheduled.set(false);
      for (Pending p; (p = writes.poll()) != null; ) {
        int id = h2.connection().local().incrementAndGetNextStreamId();
        byId.put(id, p.future());
        Http2Headers headers = new DefaultHttp2Headers(false).method("POST").scheme("http")
            .authority(authority).path("/echo").setInt("content-length", p.body().length);
        h2.encoder().writeHeaders(h2ctx, id, headers, 0, false, h2ctx.newPromise());
        h2.encoder().writeData(h2ctx, id, Unpooled.wrappedBuffer(p.body()), 0, true,
            h2ctx.newPromise());
      }
      channel.flush();
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings s) {
      settings.complete(null);
    }

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
        boolean endOfStream) {
      if (endOfStream) {
        byId.remove(streamId).complete(ByteBufUtil.getBytes(data));
      }
      return data.readableBytes() + padding;
    }

    void close() {
      channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }
}

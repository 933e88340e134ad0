package dev.ballast.compare;

import dev.ballast.bench.grpc.ByteMarshaller;
import dev.ballast.bench.grpc.UnaryCall;
import dev.ballast.bench.live.Http2Requests;
import dev.ballast.grpc.orca.ServerLoadReporting;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import dev.ballast.sim.LatencyDistribution;
import dev.ballast.sim.SlowWindow;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The servers of {@code ./ballast compare}, in the coordinating JVM: {@code n} backends, each
 * serving HTTP/1.1 and h2c (prior knowledge, told apart by the connection preface) on one port
 * and gRPC on another, answering {@code GET /} and the unary method {@link #CALL} after a latency
 * drawn from {@code normal} (at once when it is null), except backend 0 during the slow window of
 * the current run. The gRPC servers report ORCA (per-call trailers and out-of-band, through
 * {@link ServerLoadReporting}) with a utilization of the calls in flight over 100, sampled once
 * a second, so that {@code weighted_round_robin} sees a slow backend as busy.
 */
final class Backends implements AutoCloseable {

  /** The gRPC method every backend serves: bytes in, the same bytes out. */
  static final MethodDescriptor<byte[], byte[]> CALL = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("compare.Echo/Call")
      .setRequestMarshaller(ByteMarshaller.INSTANCE)
      .setResponseMarshaller(ByteMarshaller.INSTANCE)
      .build();
  private static final byte[] OK = {'o', 'k'};

  private final LatencyDistribution normal;
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final List<Server> grpc = new ArrayList<>();
  private final List<ServerLoadReporting> reporting = new ArrayList<>();
  private final List<String> http = new ArrayList<>();
  private final List<String> grpcTargets = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "compare-grpc-replies");
    t.setDaemon(true);
    return t;
  });
  private final AtomicInteger[] inFlight;
  private final AtomicLongArray received;
  private final AtomicLong inWindow = new AtomicLong();
  private final AtomicLong slowInWindow = new AtomicLong();
  private volatile long start = System.nanoTime();
  private volatile SlowWindow window; // null: all healthy

  private Backends(int n, LatencyDistribution normal) {
    this.normal = normal;
    this.inFlight = new AtomicInteger[n];
    this.received = new AtomicLongArray(n);
    for (int i = 0; i < n; i++) {
      inFlight[i] = new AtomicInteger();
    }
  }

  /** Starts {@code n} backends answering after {@code normal} (null: at once). */
  static Backends start(int n, LatencyDistribution normal) throws Exception {
    Backends b = new Backends(n, normal);
    try {
      for (int i = 0; i < n; i++) {
        b.startHttp(i);
        b.startGrpc(i);
      }
    } catch (Exception | Error e) {
      b.close();
      throw e;
    }
    return b;
  }

  /** Returns the HTTP servers' {@code host:port}s. */
  List<String> httpTargets() {
    return http;
  }

  /** Returns the gRPC servers' {@code host:port}s. */
  List<String> grpcTargets() {
    return grpcTargets;
  }

  /** Starts a run now: counters to zero, and backend 0 slow in {@code window} (null: never). */
  void begin(SlowWindow window) {
    inWindow.set(0);
    slowInWindow.set(0);
    for (int i = 0; i < received.length(); i++) {
      received.set(i, 0);
    }
    this.window = window;
    this.start = System.nanoTime();
  }

  /** Returns the share of the requests received in the slow window that went to backend 0, in percent. */
  double slowShare() {
    return 100.0 * slowInWindow.get() / Math.max(1, inWindow.get());
  }

  /** Returns the requests each backend received since {@link #begin}. */
  long[] received() {
    long[] r = new long[received.length()];
    for (int i = 0; i < r.length; i++) {
      r[i] = received.get(i);
    }
    return r;
  }

  /** Counts a request to backend {@code i} and returns how long it waits before its answer. */
  private long delayNanos(int i) {
    received.incrementAndGet(i);
    SlowWindow w = window;
    if (w != null && w.covers(System.nanoTime() - start)) {
      inWindow.incrementAndGet();
      if (i == w.backend()) {
        slowInWindow.incrementAndGet();
        return w.latency().sampleNanos(ThreadLocalRandom.current());
      }
    }
    return normal == null ? 0 : normal.sampleNanos(ThreadLocalRandom.current());
  }

  private void startHttp(int i) throws InterruptedException {
    Channel server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            channels.add(ch);
            ch.pipeline().addLast(new Sniff(i));
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
    channels.add(server);
    http.add("127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());
  }

  private void startGrpc(int i) throws Exception {
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .directExecutor()
        .addService(ServerServiceDefinition.builder("compare.Echo")
            .addMethod(CALL, ServerCalls.asyncUnaryCall((req, out) -> {
              inFlight[i].incrementAndGet();
              Runnable reply = () -> {
                inFlight[i].decrementAndGet();
                // a call its client gave up (past its deadline) is held, not answered
                if (!((ServerCallStreamObserver<byte[]>) out).isCancelled()) {
                  out.onNext(req);
                  out.onCompleted();
                }
              };
              later(timer, delayNanos(i), reply);
            }))
            .build());
    reporting.add(ServerLoadReporting.install(b, () -> Math.min(1, inFlight[i].get() / 100.0),
        Duration.ofSeconds(1)));
    Server s = b.build().start();
    grpc.add(s);
    grpcTargets.add("127.0.0.1:" + s.getPort());
  }

  /**
   * Calls the backends over HTTP/1.1, h2c and gRPC, 16 calls of each in flight, for {@code nanos}
   * and counts nothing: so that the servers' code is compiled before the first client is
   * measured, and the first client does not pay for it.
   */
  void warmUp(long nanos) throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forTarget("ballast:///" + String.join(",", grpcTargets))
        .usePlaintext().build();
    try (BallastClient<HttpRequest, HttpResponse> h1 = BallastClient.http()
            .endpoints(String.join(",", http)).build();
        BallastClient<HttpRequest, HttpResponse> h2 = BallastClient.http2()
            .endpoints(String.join(",", http)).build()) {
      HttpRequest get = HttpRequest.get("/");
      long end = System.nanoTime() + nanos;
      while (System.nanoTime() < end) {
        List<CompletableFuture<?>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          calls.add(h1.call(get));
          calls.add(h2.call(get));
          calls.add(UnaryCall.start(channel, CALL, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), OK));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    reporting.forEach(ServerLoadReporting::close);
    for (Server s : grpc) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    channels.close().sync();
    timer.shutdownNow();
  }

  /** Runs {@code reply} now when {@code delayNanos} is not positive, else that much later on {@code executor}. */
  private static void later(ScheduledExecutorService executor, long delayNanos, Runnable reply) {
    if (delayNanos <= 0) {
      reply.run();
    } else {
      executor.schedule(reply, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Reads the first bytes of a connection: HTTP/2's preface means h2c, anything else HTTP/1.1. */
  private final class Sniff extends ByteToMessageDecoder {
    private final int backend;

    Sniff(int backend) {
      this.backend = backend;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      ByteBuf preface = Http2CodecUtil.connectionPrefaceBuf();
      int n = Math.min(in.readableBytes(), preface.readableBytes());
      boolean h2 = ByteBufUtil.equals(in, in.readerIndex(), preface, 0, n);
      preface.release();
      if (h2 && n < 24) {
        return; // wait for the rest of the preface
      }
      if (h2) {
        ctx.pipeline().addAfter(ctx.name(), null, new H2Answer(backend));
        ctx.pipeline().addAfter(ctx.name(), null, Http2FrameCodecBuilder.forServer().build());
      } else {
        ctx.pipeline().addAfter(ctx.name(), null, new H1Answer(backend));
        ctx.pipeline().addAfter(ctx.name(), null, new HttpObjectAggregator(1 << 16));
        ctx.pipeline().addAfter(ctx.name(), null, new HttpServerCodec());
      }
      ctx.pipeline().remove(this); // hands the bytes read so far to the codec
    }
  }

  /** Answers each HTTP/1.1 request with 200 "ok" after its backend's latency. */
  private final class H1Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final int backend;

    H1Answer(int backend) {
      this.backend = backend;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      long delay = delayNanos(backend);
      Runnable reply = () -> {
        DefaultFullHttpResponse rep = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
            HttpResponseStatus.OK, Unpooled.wrappedBuffer(OK));
        rep.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, OK.length);
        ctx.writeAndFlush(rep);
      };
      later(ctx.executor(), delay, reply);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // a client that gave up may reset its connection
    }
  }

  /** Answers each HTTP/2 stream with 200 "ok" after its backend's latency, once its request has ended. */
  private final class H2Answer extends Http2Requests {
    private final int backend;

    H2Answer(int backend) {
      this.backend = backend;
    }

    @Override
    protected void serve(ChannelHandlerContext ctx, Http2FrameStream stream) {
      long delay = delayNanos(backend);
      Runnable reply = () -> {
        ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
            .setInt("content-length", OK.length)).stream(stream));
        ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(OK), true).stream(stream));
      };
      later(ctx.executor(), delay, reply);
    }
  }
}

package dev.ballast.bench.netty;

import com.sun.management.OperatingSystemMXBean;
import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.pool.PoolConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The stack-cost comparison over HTTP: calls per second through the whole client stack over 4
 * loopback echo backends, {@value #IN_FLIGHT} calls in flight, against raw Netty channels to the
 * same backends with the same codec, connections and write batching as the stack's.
 *
 * <ul>
 *   <li>{@code http1}: {@code BallastClient.http()} against {@code HttpClientCodec} and {@code
 *       HttpObjectAggregator} over {@value #CONNECTIONS} keep-alive connections to each backend
 *       (the pool's maximum, which the calls in flight fill), one request at a time on each,
 *       written and flushed per request as HTTP/1.1 without pipelining must, calls waiting in
 *       one queue for the next free connection.
 *   <li>{@code http2}: {@code BallastClient.http2()} with one connection per backend against
 *       {@link RawHttp2} (h2c with prior knowledge, the client's codec, streams written per
 *       event-loop task and flushed once per batch).
 * </ul>
 *
 * <p>{@link #main} measures the same by alternation (one-second windows of raw and stack in
 * turns, median of the per-round ratios of calls per second and of CPU time per call), for a
 * noisy machine.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar HttpStackCostBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.netty.HttpStackCostBenchmark [rounds] [http1|http2]
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HttpStackCostBenchmark {

  static final int IN_FLIGHT = 64;
  static final int BACKENDS = 4;
  static final int CONNECTIONS = 8;

  /** The balancer of the stack variant. */
  @Param({"p2c_peak_ewma"})
  public String balancer = "p2c_peak_ewma";

  /** The protocol: http1 or http2 (h2c). */
  @Param({"http1", "http2"})
  public String protocol = "http1";

  private final EventLoopGroup group = Transport.sharedGroup();
  private final List<Channel> servers = new ArrayList<>();
  private BallastClient<HttpRequest, HttpResponse> client;
  private RawClient raw;
  private final HttpRequest request = HttpRequest.of("POST", "/echo", new byte[64]);
  @SuppressWarnings("unchecked")
  private final CompletableFuture<?>[] calls = new CompletableFuture[IN_FLIGHT];

  /** Starts the echo backends, the client over them and the raw connections to them. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    boolean http2 = switch (protocol) {
      case "http1" -> false;
      case "http2" -> true;
      default -> throw new IllegalArgumentException(
          "protocol: '" + protocol + "' (expected: http1 or http2)");
    };
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      Channel s = http2 ? RawHttp2.echoServer(group) : echoServer();
      servers.add(s);
      endpoints.add(Endpoint.of("127.0.0.1", ((InetSocketAddress) s.localAddress()).getPort()));
    }
    client = (http2 ? BallastClient.http2() : BallastClient.http())
        .endpoints(endpoints)
        .balancer(Algorithm.fromName(balancer))
        .pool(PoolConfig.builder().maxConnections(http2 ? 1 : CONNECTIONS).build())
        .timeout(Duration.ofSeconds(10))
        .slowRequestThreshold(Duration.ofSeconds(10))
        .build();
    raw = http2 ? new RawHttp2(group, servers) : new RawPool(group, servers);
  }

  /** Stops everything. */
  @TearDown(Level.Trial)
  public void tearDown() {
    client.close();
    raw.close();
    servers.forEach(s -> s.close().awaitUninterruptibly(5, TimeUnit.SECONDS));
  }

  /** 64 calls through the full stack over the backends. */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public void stack() throws Exception {
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = client.call(request);
    }
    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
  }

  /** 64 calls over the raw connections to the same backends: the baseline. */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public void raw() throws Exception {
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = raw.call(i, request.body());
    }
    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
  }

  /**
   * Alternates raw and stack windows; arguments: rounds (default 10), protocol (http1). Prints
   * calls per second and, steadier on a busy machine, the process's CPU time per call (servers
   * included, which both variants pay alike).
   */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    HttpStackCostBenchmark b = new HttpStackCostBenchmark();
    b.protocol = args.length > 1 ? args[1] : "http1";
    b.setUp();
    try {
      for (int i = 0; i < 3; i++) {
        window(b, false);
        window(b, true);
      }
      double[] ratios = new double[rounds];
      double[] cpuRatios = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        Window raw = window(b, false);
        Window stack = window(b, true);
        ratios[r] = stack.rate() / raw.rate();
        cpuRatios[r] = raw.cpuPerCall() / stack.cpuPerCall();
        System.out.printf("round %2d: raw %,9.0f  stack %,9.0f calls/s  stack/raw %.3f;"
            + "  CPU %5.1f and %5.1f us/call  raw/stack %.3f%n", r + 1, raw.rate(), stack.rate(),
            ratios[r], raw.cpuPerCall() / 1e3, stack.cpuPerCall() / 1e3, cpuRatios[r]);
      }
      System.out.printf("%s, %d backends x %d connections: median stack/raw %.3f (calls/s),"
          + " median raw/stack %.3f (CPU per call)%n", b.protocol, BACKENDS,
          b.protocol.equals("http2") ? 1 : CONNECTIONS, StackCostRatio.median(ratios),
          StackCostRatio.median(cpuRatios));
    } finally {
      b.tearDown();
    }
  }

  /** One window: calls per second, and the process's CPU nanoseconds per call. */
  record Window(double rate, double cpuPerCall) {}

  private static Window window(HttpStackCostBenchmark b, boolean stack) throws Exception {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu = os.getProcessCpuTime();
    long start = System.nanoTime();
    long end = start + 1_000_000_000L;
    long calls = 0;
    while (System.nanoTime() < end) {
      if (stack) {
        b.stack();
      } else {
        b.raw();
      }
      calls += IN_FLIGHT;
    }
    return new Window(calls * 1e9 / (System.nanoTime() - start),
        (double) (os.getProcessCpuTime() - cpu) / calls);
  }

  private Channel echoServer() throws InterruptedException {
    return Transport.configure(new ServerBootstrap(), group)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                new SimpleChannelInboundHandler<FullHttpRequest>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                        HttpResponseStatus.OK, req.content().retainedDuplicate());
                    HttpUtil.setContentLength(r, r.content().readableBytes());
                    ctx.writeAndFlush(r, ctx.voidPromise());
                  }
                });
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  /** The raw baseline of one protocol: the {@code i}-th call of a batch, and closing. */
  interface RawClient {
    CompletableFuture<byte[]> call(int i, byte[] body);

    void close();
  }

  /** Raw keep-alive connections, one request at a time each, and one queue of waiting calls. */
  static final class RawPool implements RawClient {
    private final ConcurrentLinkedQueue<RawConnection> idle = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();
    private final List<RawConnection> all = new ArrayList<>();

    record Waiting(byte[] body, CompletableFuture<byte[]> future) {}

    RawPool(EventLoopGroup group, List<Channel> servers) throws InterruptedException {
      for (Channel s : servers) {
        for (int i = 0; i < CONNECTIONS; i++) {
          connect(group, (InetSocketAddress) s.localAddress());
        }
      }
    }

    private void connect(EventLoopGroup group, InetSocketAddress address)
        throws InterruptedException {
      RawConnection c = new RawConnection();
      c.channel = Transport.configure(new Bootstrap(), group, 2000)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              Transport.keepQuickAck(ch); // as the stack's channels
              ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20),
                  new SimpleChannelInboundHandler<FullHttpResponse>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
                      CompletableFuture<byte[]> f = c.current;
                      c.current = null;
                      byte[] body = ByteBufUtil.getBytes(r.content());
                      idle.add(c);
                      dispatch();
                      f.complete(body);
                    }
                  });
            }
          })
          .connect(address).sync().channel();
      c.host = address.getHostString() + ":" + address.getPort();
      all.add(c);
      idle.add(c);
    }

    @Override
    public CompletableFuture<byte[]> call(int i, byte[] body) {
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      waiting.add(new Waiting(body, f));
      dispatch();
      return f;
    }

    // Pairs waiting calls with idle connections; a call or a connection added concurrently is
    // paired by the dispatch that follows its own addition.
    private void dispatch() {
      while (!waiting.isEmpty()) {
        RawConnection c = idle.poll();
        if (c == null) {
          return;
        }
        Waiting w = waiting.poll();
        if (w == null) {
          idle.add(c);
          return;
        }
        c.send(w);
      }
    }

    @Override
    public void close() {
      all.forEach(c -> c.channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS));
    }
  }

  static final class RawConnection {
    Channel channel;
    String host;
    volatile CompletableFuture<byte[]> current;

    void send(RawPool.Waiting w) {
      current = w.future();
      DefaultFullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
          HttpMethod.POST, "/echo", Unpooled.wrappedBuffer(w.body()));
      r.headers().set(HttpHeaderNames.HOST, host);
      HttpUtil.setContentLength(r, w.body().length);
      HttpUtil.setKeepAlive(r, true);
      channel.writeAndFlush(r, channel.voidPromise());
    }
  }
}

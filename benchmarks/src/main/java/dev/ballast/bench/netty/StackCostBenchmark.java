package dev.ballast.bench.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameEncoder;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * Calls per second through the whole client stack (per-call context, deadline, retry policy and
 * budget, balancer, response classification, outlier detection, metrics, connection pool,
 * framed codec) over 4 loopback backends, against raw Netty channels with the same codec and a
 * minimal request-id dispatcher: what the stack costs.
 *
 * <p>Three baselines: {@code rawChannel} writes and flushes each call on one channel (the plain
 * way); {@code rawChannelBatched} queues calls and flushes them in batches as the stack does, on
 * one channel; {@code rawBatchedFanOut} does the same over one channel per backend, taken in
 * turn, so that it pays the same fan-out (connections, flushes, wake-ups) as the stack. The
 * stack's cost is its score against {@code rawChannelBatched}; against {@code rawBatchedFanOut}
 * it is the cost of the stack's own work alone.
 *
 * <p>Each invocation sends {@value #IN_FLIGHT} calls at once and waits for all of them, so both
 * sides keep 64 requests in flight; scores are calls per second.
 *
 * <p>{@code transport} runs everything (servers, client, raw channels) on an event-loop group of
 * that transport, one thread per core like the shared group: {@code epoll} (native; fails when
 * the library does not load), {@code nio}, or {@code shared} (the process-wide group, epoll when
 * it loads).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar StackCostBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s
 * java -jar benchmarks/target/benchmarks.jar 'StackCostBenchmark.(stack|rawChannelBatched)$' -p transport=epoll,nio
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StackCostBenchmark {

  static final int IN_FLIGHT = 64;

  /** The balancer of the stack variant. */
  @Param({"p2c_peak_ewma", "round_robin"})
  public String balancer;

  /** How many backends the stack balances over (the raw channel always uses one). */
  @Param({"4"})
  public int backends = 4;

  /** The transport everything runs on: shared, epoll or nio. */
  @Param({"shared"})
  public String transport = "shared";

  private EventLoopGroup group;
  private final List<FramedServer> servers = new ArrayList<>();
  private BallastClient<byte[], byte[]> client;
  private RawClient raw;
  private RawClient rawBatched;
  private final List<RawClient> fanOut = new ArrayList<>();
  private final byte[] payload = new byte[64];
  @SuppressWarnings("unchecked")
  private final CompletableFuture<byte[]>[] calls = new CompletableFuture[IN_FLIGHT];

  /** Starts the echo backends, the client over all of them and the raw clients over the first. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    if (backends < 1) {
      throw new IllegalArgumentException("backends: " + backends + " (expected: >= 1)");
    }
    group = group(transport);
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < backends; i++) {
      FramedServer s = FramedServer.builder().handler(FramedServer.echo())
          .eventLoopGroup(group).start();
      servers.add(s);
      endpoints.add(s.endpoint());
    }
    client = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(Algorithm.fromName(balancer))
        .timeout(Duration.ofSeconds(10))
        .slowRequestThreshold(Duration.ofSeconds(10))
        .eventLoopGroup(group)
        .build();
    raw = new RawClient(group, servers.get(0), false);
    rawBatched = new RawClient(group, servers.get(0), true);
    for (FramedServer s : servers) {
      fanOut.add(new RawClient(group, s, true));
    }
  }

  private static EventLoopGroup group(String transport) {
    int threads = Runtime.getRuntime().availableProcessors();
    DefaultThreadFactory threadFactory = new DefaultThreadFactory("bench-" + transport, true);
    switch (transport) {
      case "shared":
        return Transport.sharedGroup();
      case "nio":
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, NioIoHandler.newFactory());
      case "epoll":
        Epoll.ensureAvailability();
        return new MultiThreadIoEventLoopGroup(threads, threadFactory,
            EpollIoHandler.newFactory());
      default:
        throw new IllegalArgumentException(
            "transport: '" + transport + "' (expected: shared, epoll or nio)");
    }
  }

  /** Stops everything. */
  @TearDown(Level.Trial)
  public void tearDown() {
    client.close();
    raw.close();
    rawBatched.close();
    fanOut.forEach(RawClient::close);
    servers.forEach(FramedServer::close);
    if (group != Transport.sharedGroup()) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  /** 64 calls through the full stack over the backends. */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public void stack() throws Exception {
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = client.call(payload);
    }
    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
  }

  /** 64 calls on one raw channel with the same codec: the baseline. */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public void rawChannel() throws Exception {
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = raw.call(payload);
    }
    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
  }

  /**
   * 64 calls on one raw channel with the same codec, writing like the stack does (a queue
   * drained by one event-loop task, one flush per batch): the baseline that isolates the
   * stack's own cost.
   */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public void rawChannelBatched() throws Exception {
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = rawBatched.call(payload);
    }
    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
  }

  /**
   * 64 calls over one raw batched channel per backend, each call on the next channel in turn:
   * the baseline with the stack's fan-out, that isolates the stack's own work.
   */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public void rawBatchedFanOut() throws Exception {
    int n = fanOut.size();
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = fanOut.get(i % n).call(payload);
    }
    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
  }

  /**
   * One Netty channel, FrameEncoder/FrameDecoder and an id-to-future map: nothing else. Writes
   * either with writeAndFlush per call, or batched like the stack.
   */
  static final class RawClient {
    private final Channel channel;
    private final ConcurrentHashMap<Long, CompletableFuture<byte[]>> pending =
        new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final boolean batched;
    private final ConcurrentLinkedQueue<Frame> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    RawClient(EventLoopGroup group, FramedServer server, boolean batched)
        throws InterruptedException {
      this.batched = batched;
      channel = Transport.configure(new Bootstrap(), group, 2000)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              Transport.keepQuickAck(ch); // as the stack's channels
              ch.pipeline().addLast(new FrameDecoder(), new FrameEncoder(),
                  new SimpleChannelInboundHandler<Frame>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
                      CompletableFuture<byte[]> cf = pending.remove(f.id());
                      if (cf != null) {
                        cf.complete(f.payload());
                      }
                    }
                  });
            }
          })
          .connect(server.address()).sync().channel();
    }

    CompletableFuture<byte[]> call(byte[] payload) {
      long id = ids.incrementAndGet();
      CompletableFuture<byte[]> cf = new CompletableFuture<>();
      pending.put(id, cf);
      Frame f = new Frame(Frame.REQUEST, id, payload);
      if (!batched) {
        channel.writeAndFlush(f, channel.voidPromise());
      } else {
        queue.add(f);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
          channel.eventLoop().execute(this::drain);
        }
      }
      return cf;
    }

    private void drain() {
      scheduled.set(false);
      for (Frame f; (f = queue.poll()) != null; ) {
        channel.write(f, channel.voidPromise());
      }
      channel.flush();
    }

    void close() {
      channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }
}

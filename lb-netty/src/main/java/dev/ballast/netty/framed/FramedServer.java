package dev.ballast.netty.framed;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The server side of the framed protocol: accepts connections, decodes request frames, hands
 * each payload to a {@link Handler} and writes its answer back with the same request id, in
 * whatever order the answers complete. A handler whose future fails (or which throws) answers
 * with an error frame carrying the message; the client sees a {@link
 * dev.ballast.netty.error.RemoteException}.
 *
 * <p>Backpressure: a connection stops being read while its channel is not writable (its peer
 * does not read the answers) and while it holds more than {@linkplain Builder#maxHeldBytes the
 * held-bytes bound} of requests being handled and answers (with their load reports) not yet
 * written to the socket; it is read again once the answers drain. So a client that pipelines
 * requests and never reads makes the server hold about one write buffer, one frame being
 * decoded and the held-bytes bound, not everything it sent.
 *
 * <p>Stand up a backend on an ephemeral loopback port:
 *
 * <pre>{@code
 * FramedServer server = FramedServer.start(FramedServer.delayed(Duration.ofMillis(5),
 *     req -> CompletableFuture.completedFuture(req.payload())));
 * Endpoint endpoint = server.endpoint();   // 127.0.0.1:<port>
 * ...
 * server.close();
 * }</pre>
 */
public final class FramedServer implements AutoCloseable {

  /** Answers one request; must not block (it runs on the connection's event loop). */
  @FunctionalInterface
  public interface Handler {
    /** Returns the future response payload for one request. */
    CompletableFuture<byte[]> handle(Request request);
  }

  /** One request as seen by a {@link Handler}. */
  public static final class Request {
    private final byte[] payload;
    private final Channel channel;

    Request(byte[] payload, Channel channel) {
      this.payload = payload;
      this.channel = channel;
    }

    /** Returns the request payload. */
    public byte[] payload() {
      return payload;
    }

    /**
     * Returns the connection's event loop, to schedule work without blocking, e.g. an artificial
     * latency: {@code request.executor().schedule(...)}.
     */
    public ScheduledExecutorService executor() {
      return channel.eventLoop();
    }

    /** Returns the client's address. */
    public InetSocketAddress remoteAddress() {
      return (InetSocketAddress) channel.remoteAddress();
    }

    /**
     * Returns a future completed with {@code response} after {@code delay} (longer than 100 years
     * counts as 100 years), on the event loop.
     */
    public CompletableFuture<byte[]> replyAfter(Duration delay, byte[] response) {
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      long nanos = Durations.nanos(Objects.requireNonNull(delay, "delay"));
      if (nanos <= 0) {
        f.complete(response);
      } else {
        channel.eventLoop().schedule(() -> f.complete(response), nanos, TimeUnit.NANOSECONDS);
      }
      return f;
    }
  }

  /** Returns a handler that echoes the request payload. */
  public static Handler echo() {
    return req -> CompletableFuture.completedFuture(req.payload());
  }

  /**
   * Returns a handler that answers like {@code handler} but {@code delay} later (no sleeping;
   * longer than 100 years counts as 100 years).
   */
  public static Handler delayed(Duration delay, Handler handler) {
    long nanos = Durations.nanos(Objects.requireNonNull(delay, "delay"));
    Objects.requireNonNull(handler, "handler");
    return req -> {
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      req.executor().schedule(() -> {
        try {
          handler.handle(req).whenComplete((v, e) -> {
            if (e != null) {
              f.completeExceptionally(e);
            } else {
              f.complete(v);
            }
          });
        } catch (RuntimeException e) {
          f.completeExceptionally(e);
        }
      }, nanos, TimeUnit.NANOSECONDS);
      return f;
    };
  }

  /** Returns a handler whose latency per request is chosen by {@code delay} (e.g. random). */
  public static Handler delayed(Function<Request, Duration> delay, Handler handler) {
    return req -> delayed(delay.apply(req), handler).handle(req);
  }

  private final Channel serverChannel;
  private final ChannelGroup children;
  private final AtomicLong requests = new AtomicLong();
  private final InetSocketAddress address;
  private final ServerLoad load;
  // set before closing: a connection accepted just before the listening socket closed, but set
  // up only after the open ones were closed, closes itself
  private volatile boolean closing;
  private volatile boolean serving = true;

  private FramedServer(Builder b) throws InterruptedException {
    this.children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    Handler handler = b.handler;
    int maxFrameSize = b.maxFrameSize;
    long maxHeldBytes = b.maxHeldBytes;
    SslContext tls = b.tls;
    ServerLoad load = b.load == null ? null : b.load.get(); // each server counts its own
    this.load = load;
    FrameEncoder encoder = new FrameEncoder(maxFrameSize);
    PingResponder pings = new PingResponder(() -> serving);
    ServerBootstrap sb = Transport.configure(new ServerBootstrap(), b.group)
        .childOption(ChannelOption.ALLOCATOR, b.allocator)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            children.add(ch);
            if (closing) {
              ch.close();
              return;
            }
            if (tls != null) {
              ch.pipeline().addLast(tls.newHandler(ch.alloc()));
            }
            // Answers written while a read is being handled go out in one flush.
            ch.pipeline().addLast(new FlushConsolidationHandler(256, true),
                new FrameDecoder(maxFrameSize), encoder, pings,
                new ServerConnection(handler, maxHeldBytes, requests, load));
          }
        });
    this.serverChannel = sb.bind(b.host, b.port).sync().channel();
    this.address = (InetSocketAddress) serverChannel.localAddress();
    if (load != null) {
      load.start(b.group);
    }
  }

  /** Starts a server with this handler on an ephemeral port of 127.0.0.1. */
  public static FramedServer start(Handler handler) {
    return builder().handler(handler).start();
  }

  /**
   * Returns a builder: host 127.0.0.1, ephemeral port, 16 MiB frames, 64 MiB held per connection,
   * plain TCP, the shared event loops, no load reports.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the bound address. */
  public InetSocketAddress address() {
    return address;
  }

  // what this server reports of its load, or null (for tests)
  ServerLoad load() {
    return load;
  }

  /** Returns the bound port. */
  public int port() {
    return address.getPort();
  }

  /** Returns this server as an endpoint of weight 1: {@code 127.0.0.1:<port>}. */
  public Endpoint endpoint() {
    return Endpoint.of(address.getAddress().getHostAddress(), address.getPort());
  }

  /** Returns how many request frames this server has received. */
  public long requests() {
    return requests.get();
  }

  /**
   * Sets what the server answers to a client's health check ({@link Frame#PING}): a ping while
   * serving (the default), an error frame when not; requests are handled either way.
   */
  public void setServing(boolean serving) {
    this.serving = serving;
  }

  /** Returns how many client connections are open now. */
  public int connections() {
    return children.size();
  }

  /**
   * Closes the listening socket and every open connection at once (in-flight requests are
   * dropped: this is how tests kill a backend), and waits up to 10 s for it.
   */
  @Override
  public void close() {
    closing = true;
    if (load != null) {
      load.stop();
    }
    serverChannel.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
    children.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
  }

  @Override
  public String toString() {
    return "FramedServer{" + address + "}";
  }

  /** Builds and starts a {@link FramedServer}. */
  public static final class Builder {
    private Handler handler = echo();
    private String host = "127.0.0.1";
    private int port;
    private int maxFrameSize = FrameDecoder.DEFAULT_MAX_FRAME_SIZE;
    private long maxHeldBytes = 4L * FrameDecoder.DEFAULT_MAX_FRAME_SIZE;
    private EventLoopGroup group = Transport.sharedGroup();
    private ByteBufAllocator allocator = ByteBufAllocator.DEFAULT;
    private SslContext tls;
    private java.util.function.Supplier<ServerLoad> load;

    private Builder() {}

    /**
     * Reports the server's load to the clients that ask for it ({@link Frame#LOAD_REPORT}, read
     * by lb-netty clients balancing with {@code weighted_round_robin} or {@code
     * p2c_utilization}), in one line: the process's CPU utilization from the JVM ({@code
     * com.sun.management.OperatingSystemMXBean.getProcessCpuLoad()}, the share of all the
     * machine's CPUs it used), and the answers and errors per second the server sent, sampled
     * every second on one of its event loops. Until the first sample, no report is sent. Default:
     * no reports.
     */
    public Builder reportLoad() {
      return reportLoad(ServerLoad::processCpuLoad, Duration.ofSeconds(1));
    }

    /**
     * Reports the server's load as {@link #reportLoad()} does, with the application's own
     * measure of how busy it is sampled every {@code period}: in [0, 1], or above 1 for a server
     * past its soft limits, as A51 allows (up to {@value
     * dev.ballast.core.load.LoadReport#MAX_UTILIZATION}); a negative, NaN or larger value, or a
     * supplier that throws, sends no report until the next good sample.
     *
     * @throws IllegalArgumentException if the period is not positive
     */
    public Builder reportLoad(java.util.function.DoubleSupplier utilization, Duration period) {
      Objects.requireNonNull(utilization, "utilization");
      long nanos = Durations.positive("period", period).toNanos();
      this.load = () -> ServerLoad.sampled(utilization, nanos);
      return this;
    }

    /**
     * Reports the same load always, e.g. from a server that knows its capacity: qps over
     * utilization is the weight a client's {@code weighted_round_robin} gives it.
     *
     * @throws IllegalArgumentException if the report is longer than {@link
     *     Frame#MAX_LOAD_REPORT_BYTES} in text
     */
    public Builder reportLoad(dev.ballast.core.load.LoadReport report) {
      ServerLoad fixed = ServerLoad.fixed(Objects.requireNonNull(report, "report"));
      this.load = () -> fixed; // nothing sampled: servers can share it
      return this;
    }

    /** Sets the handler; default {@link #echo()}. */
    public Builder handler(Handler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Sets the host to bind; default {@code 127.0.0.1}. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Sets the port; default 0 (ephemeral). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port: " + port + " (expected: 0-65535)");
      }
      this.port = port;
      return this;
    }

    /** Sets the maximum frame size; default 16 MiB. */
    public Builder maxFrameSize(int maxFrameSize) {
      if (maxFrameSize < Frame.HEADER_BYTES) {
        throw new IllegalArgumentException(
            "maxFrameSize: " + maxFrameSize + " (expected: >= " + Frame.HEADER_BYTES + ")");
      }
      this.maxFrameSize = maxFrameSize;
      return this;
    }

    /**
     * Sets how many bytes one connection may hold, in requests being handled and answers (with
     * their load reports) not yet written to the socket, before it stops being read; default 64
     * MiB. A request is always read when the connection holds nothing, whatever its size.
     */
    public Builder maxHeldBytes(long maxHeldBytes) {
      if (maxHeldBytes < 0) {
        throw new IllegalArgumentException("maxHeldBytes: " + maxHeldBytes + " (expected: >= 0)");
      }
      this.maxHeldBytes = maxHeldBytes;
      return this;
    }

    /** Sets the buffer allocator of the connections; default Netty's {@code DEFAULT}. */
    public Builder allocator(ByteBufAllocator allocator) {
      this.allocator = Objects.requireNonNull(allocator, "allocator");
      return this;
    }

    /**
     * Speaks TLS with this server context (e.g. {@code SslContextBuilder.forServer(certificate,
     * privateKey).build()}); default plain TCP.
     */
    public Builder tls(SslContext tls) {
      this.tls = Objects.requireNonNull(tls, "tls");
      return this;
    }

    /** Sets the event-loop group; default the process-wide shared one. */
    public Builder eventLoopGroup(EventLoopGroup group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /**
     * Binds and returns the running server.
     *
     * @throws IllegalStateException if binding fails
     */
    public FramedServer start() {
      try {
        return new FramedServer(this);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while binding " + host + ":" + port, e);
      } catch (Exception e) { // a taken port is an IOException, which Netty's sync() rethrows
        throw new IllegalStateException("cannot bind " + host + ":" + port + ": " + e, e);
      }
    }
  }
}

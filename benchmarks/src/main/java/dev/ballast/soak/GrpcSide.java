package dev.ballast.soak;

import dev.ballast.bench.grpc.ByteMarshaller;
import dev.ballast.core.Endpoint;
import dev.ballast.grpc.EndpointRegistry;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC side: servers on 127.0.0.1 that the chaos loop slows, stalls, kills and restarts, and
 * one channel on {@code ballast://soak-grpc} (Ballast's VNSWRR policy) fed through an
 * {@link EndpointRegistry}, keeping calls in flight.
 */
final class GrpcSide implements AutoCloseable {

  static final String NAME = "soak-grpc";

  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("ballast.soak.Echo/Call")
          .setRequestMarshaller(ByteMarshaller.INSTANCE)
          .setResponseMarshaller(ByteMarshaller.INSTANCE)
          .build();

  /** One server address: up or down, answering normally, slowly or never. */
  final class Backend {
    private volatile FramedSide.Mode mode = FramedSide.Mode.NORMAL;
    private final int port;
    private Server server;

    Backend() throws IOException {
      server = serve(0);
      port = server.getPort();
    }

    private Server serve(int p) throws IOException {
      ServerServiceDefinition service = ServerServiceDefinition.builder("ballast.soak.Echo")
          .addMethod(ECHO, ServerCalls.asyncUnaryCall(this::handle))
          .build();
      return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", p))
          .bossEventLoopGroup(SERVERS).workerEventLoopGroup(SERVERS)
          .channelType(NioServerSocketChannel.class)
          .addService(service).build().start();
    }

    private void handle(byte[] req, StreamObserver<byte[]> observer) {
      long delay;
      switch (mode) {
        case STALL:
          return; // never answers; the caller's deadline ends the call
        case SLOW:
          delay = slowMillis;
          break;
        default:
          delay = normalMillis;
      }
      scheduler.schedule(() -> {
        observer.onNext(req);
        observer.onCompleted();
      }, delay, TimeUnit.MILLISECONDS);
    }

    Endpoint endpoint() {
      return Endpoint.of("127.0.0.1", port);
    }

    FramedSide.Mode mode() {
      return mode;
    }

    synchronized void behave(FramedSide.Mode m) {
      if (server != null) {
        mode = m;
      }
    }

    synchronized void kill() {
      if (server != null) {
        server.shutdownNow();
        server = null;
      }
      mode = FramedSide.Mode.DOWN;
    }

    /** Starts the server again at its port; returns false if the port is taken for now. */
    synchronized boolean restart() {
      if (server == null) {
        try {
          server = serve(port);
        } catch (IOException portTaken) {
          return false;
        }
      }
      mode = FramedSide.Mode.NORMAL;
      return true;
    }

    synchronized void close() {
      if (server != null) {
        server.shutdownNow();
        server = null;
      }
    }
  }

  /** The servers' own loop, apart from the channel's, as if they ran elsewhere. */
  private static final EventLoopGroup SERVERS = new NioEventLoopGroup(1, r -> {
    Thread t = new Thread(r, "soak-grpc-servers");
    t.setDaemon(true);
    return t;
  });

  final List<Backend> backends = new ArrayList<>();
  final Load load;
  final EndpointRegistry registry = new EndpointRegistry();
  private final ManagedChannel channel;
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
      r -> {
        Thread t = new Thread(r, "soak-grpc-answers");
        t.setDaemon(true);
        return t;
      });
  private final long normalMillis;
  private final long slowMillis;
  private final long timeoutMillis;

  GrpcSide(int count, int target, long timeoutMillis, long normalMillis, long slowMillis)
      throws IOException {
    this.timeoutMillis = timeoutMillis;
    this.normalMillis = normalMillis;
    this.slowMillis = slowMillis;
    for (int i = 0; i < count; i++) {
      backends.add(new Backend());
    }
    this.load = new Load(new Tally("grpc", TimeUnit.MILLISECONDS.toNanos(timeoutMillis)), target);
    publish(backends);
    this.channel = NettyChannelBuilder.forTarget("ballast://" + NAME)
        .nameResolverFactory(registryResolver())
        .defaultLoadBalancingPolicy("vnswrr")
        .usePlaintext()
        .build();
  }

  private io.grpc.NameResolver.Factory registryResolver() {
    return new dev.ballast.grpc.BallastNameResolverProvider(registry);
  }

  /** Publishes {@code bs} with their current addresses. */
  void publish(List<Backend> bs) {
    List<Endpoint> es = new ArrayList<>();
    for (Backend b : bs) {
      es.add(b.endpoint());
    }
    registry.publish(NAME, es);
  }

  /**
   * Publishes a list the channel's VNSWRR policy must refuse (a ring of 2^25 virtual nodes);
   * the channel keeps its last good list.
   */
  void publishInvalid() {
    registry.publish(NAME, List.of(backends.get(0).endpoint().withWeight(16_777_216),
        backends.get(1).endpoint().withWeight(16_777_217)));
  }

  /** Keeps the load's calls in flight, at most {@code perSecond} started a second. */
  void drive(int perSecond, long untilNanos) throws InterruptedException {
    byte[] payload = new byte[64];
    CallOptions options = CallOptions.DEFAULT;
    load.drive(perSecond, untilNanos, start -> ClientCalls.asyncUnaryCall(channel.newCall(ECHO,
        options.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS)), payload,
        new StreamObserver<>() {
          @Override
          public void onNext(byte[] value) {}

          @Override
          public void onError(Throwable t) {
            load.ended(start, Outcomes.of(t));
          }

          @Override
          public void onCompleted() {
            load.ended(start, "ok");
          }
        }));
  }



  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    for (Backend b : backends) {
      b.close();
    }
    scheduler.shutdownNow();
  }
}

package dev.ballast.discovery;

import dev.ballast.grpc.testing.Marshallers;
import dev.ballast.netty.framed.FramedServer;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Backends on 127.0.0.1, each serving the framed protocol and gRPC on two ports, and counting
 * its calls and the time of its last one (System.nanoTime) per protocol.
 */
final class Backends implements AutoCloseable {

  static final MethodDescriptor<byte[], byte[]> CALL = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("ballast.test.Backend/Call")
      .setRequestMarshaller(Marshallers.BYTES)
      .setResponseMarshaller(Marshallers.BYTES)
      .build();

  final List<Backend> all = new ArrayList<>();

  /** One backend: a framed server and a gRPC server. */
  static final class Backend {
    final FramedServer framed;
    final Server grpc;
    final AtomicLong framedCalls = new AtomicLong();
    final AtomicLong grpcCalls = new AtomicLong();
    final AtomicLong lastFramedCall = new AtomicLong(Long.MIN_VALUE);
    final AtomicLong lastGrpcCall = new AtomicLong(Long.MIN_VALUE);

    Backend() throws IOException {
      framed = FramedServer.start(req -> {
        framedCalls.incrementAndGet();
        lastFramedCall.set(System.nanoTime());
        return CompletableFuture.completedFuture(req.payload());
      });
      ServerServiceDefinition service = ServerServiceDefinition.builder("ballast.test.Backend")
          .addMethod(CALL, ServerCalls.asyncUnaryCall((req, out) -> {
            grpcCalls.incrementAndGet();
            lastGrpcCall.set(System.nanoTime());
            out.onNext(req);
            out.onCompleted();
          }))
          .build();
      grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(service).build().start();
    }

    /** The framed endpoint's address, {@code 127.0.0.1:port}. */
    String framedAddress() {
      return "127.0.0.1:" + framed.port();
    }

    /** The gRPC endpoint's address. */
    String grpcAddress() {
      return "127.0.0.1:" + grpc.getPort();
    }
  }

  Backend add() throws IOException {
    Backend b = new Backend();
    all.add(b);
    return b;
  }

  Backend get(int i) {
    return all.get(i);
  }

  void resetCounts() {
    for (Backend b : all) {
      b.framedCalls.set(0);
      b.grpcCalls.set(0);
    }
  }

  long[] framedCounts() {
    return all.stream().mapToLong(b -> b.framedCalls.get()).toArray();
  }

  long[] grpcCounts() {
    return all.stream().mapToLong(b -> b.grpcCalls.get()).toArray();
  }

  @Override
  public void close() throws InterruptedException {
    for (Backend b : all) {
      b.framed.close();
      b.grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}

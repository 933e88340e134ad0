package dev.ballast.examples;

import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** A gRPC server on 127.0.0.1 whose one method, {@link #WHO}, answers with the server's name. */
final class WhoServer {

  /** {@code orders.Orders/Who}: a unary call of UTF-8 text answered with the server's name. */
  static final MethodDescriptor<String, String> WHO =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("orders.Orders/Who")
          .setRequestMarshaller(Utf8.INSTANCE)
          .setResponseMarshaller(Utf8.INSTANCE)
          .build();

  private WhoServer() {}

  /** Starts a server on an ephemeral port of 127.0.0.1; the caller shuts it down. */
  static Server start(String name) throws IOException {
    ServerServiceDefinition service = ServerServiceDefinition.builder("orders.Orders")
        .addMethod(WHO, ServerCalls.asyncUnaryCall((request, reply) -> {
          reply.onNext(name);
          reply.onCompleted();
        }))
        .build();
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(service).build().start();
  }

  private enum Utf8 implements MethodDescriptor.Marshaller<String> {
    INSTANCE;

    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}

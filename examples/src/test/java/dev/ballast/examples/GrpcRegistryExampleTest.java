package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's gRPC-with-a-registry example over a real ZooKeeper and two gRPC servers. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcRegistryExampleTest {

  private static final MethodDescriptor<String, String> WHO =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("orders.Orders/Who")
          .setRequestMarshaller(Utf8.INSTANCE)
          .setResponseMarshaller(Utf8.INSTANCE)
          .build();

  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  @Test
  void aChannelOnAZooKeeperTargetReachesEveryRegisteredServer() throws Exception {
    TestingServer zooKeeper = open(new TestingServer(true));
    for (String name : List.of("a", "b")) {
      Server server = grpcServer(name);
      open(ZooKeeperExample.announce(zooKeeper.getConnectString(),
          "127.0.0.1:" + server.getPort()));
    }
    ManagedChannel channel = GrpcRegistryExample.fromZooKeeper(zooKeeper.getConnectString());
    opened.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));

    // Bounded: until both servers have answered (both registered, both subchannels READY).
    Map<String, Integer> answered = new TreeMap<>();
    for (int i = 0; i < 2_000 && answered.size() < 2; i++) {
      answered.merge(ClientCalls.blockingUnaryCall(channel, WHO,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS).withWaitForReady(), ""),
          1, Integer::sum);
    }
    assertThat(answered).containsOnlyKeys("a", "b");
  }

  private Server grpcServer(String name) throws Exception {
    ServerServiceDefinition service = ServerServiceDefinition.builder("orders.Orders")
        .addMethod(WHO, ServerCalls.asyncUnaryCall((request, reply) -> {
          reply.onNext(name);
          reply.onCompleted();
        }))
        .build();
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(service).build().start();
    opened.add(() -> server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return server;
  }

  private <T extends AutoCloseable> T open(T closeable) {
    opened.add(closeable);
    return closeable;
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
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}

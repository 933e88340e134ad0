package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Real gRPC servers on 127.0.0.1 ephemeral ports; each answers a unary call with its index. */
final class GrpcServers implements AutoCloseable {

  static final MethodDescriptor<String, String> WHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("ballast.test.Who/Call")
      .setRequestMarshaller(Utf8.INSTANCE)
      .setResponseMarshaller(Utf8.INSTANCE)
      .build();

  private final List<Server> servers = new ArrayList<>();
  private final List<AtomicInteger> calls = new ArrayList<>();

  static GrpcServers start(int count) throws IOException {
    GrpcServers s = new GrpcServers();
    for (int i = 0; i < count; i++) {
      int index = i;
      AtomicInteger counter = new AtomicInteger();
      ServerServiceDefinition service = ServerServiceDefinition.builder("ballast.test.Who")
          .addMethod(WHO, ServerCalls.asyncUnaryCall((req, observer) -> {
            counter.incrementAndGet();
            observer.onNext(Integer.toString(index));
            observer.onCompleted();
          }))
          .build();
      s.servers.add(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(service).build().start());
      s.calls.add(counter);
    }
    return s;
  }

  int port(int i) {
    return servers.get(i).getPort();
  }

  int[] calls() {
    return calls.stream().mapToInt(AtomicInteger::get).toArray();
  }

  void resetCalls() {
    calls.forEach(c -> c.set(0));
  }

  @Override
  public void close() throws InterruptedException {
    for (Server s : servers) {
      s.shutdownNow();
    }
    for (Server s : servers) {
      s.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  static void shutdown(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  /** Calls {@link #WHO} (10 s deadline); returns the index of the server that answered. */
  static String call(Channel channel) {
    return ClientCalls.blockingUnaryCall(channel, WHO,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "who");
  }

  /** Calls until every server has answered once, so that every subchannel is READY. */
  void warmUp(Channel channel) {
    resetCalls();
    for (int i = 0; i < 2_000 && Arrays.stream(calls()).anyMatch(c -> c == 0); i++) {
      call(channel);
    }
    assertThat(calls()).as("every server reached during warm-up").doesNotContain(0);
  }

  /**
   * Over three servers of weights 1, 2 and 3 balanced by vnswrr: after a warm-up, 600 calls
   * reach them exactly 100, 200 and 300 times (every run of 6 picks holds 1, 2 and 3 of them;
   * gRPC's pick_first would give one server everything, its round_robin 200 each). Shuts the
   * channel down.
   */
  void assertExactWeightedSplit(ManagedChannel channel) throws InterruptedException {
    try {
      warmUp(channel);
      resetCalls();
      for (int i = 0; i < 600; i++) {
        call(channel);
      }
      assertThat(calls()).containsExactly(100, 200, 300);
    } finally {
      shutdown(channel);
    }
  }

  /**
   * 300 calls all answered, and each server counted exactly the answers it gave. Shuts the
   * channel down.
   */
  void assertEveryCallAnswered(ManagedChannel channel) throws InterruptedException {
    try {
      resetCalls();
      int[] answers = new int[servers.size()];
      for (int i = 0; i < 300; i++) {
        answers[Integer.parseInt(call(channel))]++;
      }
      assertThat(Arrays.stream(answers).sum()).isEqualTo(300);
      assertThat(calls()).containsExactly(answers);
    } finally {
      shutdown(channel);
    }
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
        throw new UncheckedIOException(e);
      }
    }
  }
}

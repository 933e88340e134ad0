package com.example.orders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ballast.core.Endpoint;
import dev.ballast.grpc.EndpointRegistry;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
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
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The channels over three real gRPC servers on 127.0.0.1, each counting the calls it answers. */
class OrdersChannelsTest {

  private static final MethodDescriptor<String, String> CALL =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("orders.Orders/Call")
          .setRequestMarshaller(Utf8.INSTANCE)
          .setResponseMarshaller(Utf8.INSTANCE)
          .build();

  private final List<Server> servers = new ArrayList<>();
  private final AtomicIntegerArray answered = new AtomicIntegerArray(3);
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void startServers() throws IOException {
    for (int i = 0; i < 3; i++) {
      int index = i;
      ServerServiceDefinition service = ServerServiceDefinition.builder("orders.Orders")
          .addMethod(CALL, ServerCalls.asyncUnaryCall((request, reply) -> {
            answered.incrementAndGet(index);
            reply.onNext(request);
            reply.onCompleted();
          }))
          .build();
      servers.add(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(service).build().start());
    }
  }

  @AfterEach
  void stop() throws InterruptedException {
    channels.forEach(ManagedChannel::shutdownNow);
    servers.forEach(Server::shutdownNow);
    for (Server s : servers) {
      s.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void fixedListSpreadsCallsOverEveryServer() {
    ManagedChannel channel = open(OrdersChannels.fixed(list("", "", "")));
    callUntilAllAnswered(channel);
    int[] counts = call(channel, 300);
    assertEquals(300, Arrays.stream(counts).sum(), Arrays.toString(counts));
    for (int c : counts) {
      assertTrue(c > 0, "a server got no call of 300: " + Arrays.toString(counts));
    }
  }

  @Test
  void tunedPolicyServesEveryCall() {
    ManagedChannel channel = open(OrdersChannels.tuned(list("", "", "")));
    callUntilAllAnswered(channel);
    assertEquals(300, Arrays.stream(call(channel, 300)).sum());
  }

  @Test
  void discoveredEndpointsAreSplitExactlyByWeightUnderVnswrr() {
    ManagedChannel channel = open(OrdersChannels.discovered(
        Endpoint.parseList(list(";weight=1", ";weight=2", ";weight=3"))));
    try {
      callUntilAllAnswered(channel);
      // Ballast's vnswrr, not gRPC's own round robin: 1/2/3 of every 6 calls.
      assertArrayEquals(new int[] {100, 200, 300}, call(channel, 600));
    } finally {
      EndpointRegistry.global().publish("orders", List.of());
    }
  }

  @Test
  void byKeySendsEveryCallOfAKeyToOneServer() {
    ManagedChannel channel = open(OrdersChannels.byKey(list("", "", "")));
    callUntilAllAnswered(channel);
    int spread = 0;
    for (int key = 0; key < 30; key++) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "user-" + key);
      Channel keyed = ClientInterceptors.intercept(channel,
          MetadataUtils.newAttachHeadersInterceptor(headers));
      int[] before = counts();
      for (int i = 0; i < 5; i++) {
        call(keyed, 1);
      }
      int[] after = counts();
      int servers = 0;
      for (int s = 0; s < 3; s++) {
        servers += after[s] > before[s] ? 1 : 0;
        spread |= after[s] > before[s] ? 1 << s : 0;
      }
      assertEquals(1, servers, "user-" + key + " reached " + servers + " servers");
    }
    assertEquals(7, spread, "30 keys should reach all 3 servers");
  }

  private ManagedChannel open(ManagedChannel channel) {
    channels.add(channel);
    return channel;
  }

  private String list(String... suffixes) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < servers.size(); i++) {
      sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(servers.get(i).getPort())
          .append(suffixes[i]);
    }
    return sb.toString();
  }

  /** Calls until each server has answered (every subchannel READY), then zeroes the counts. */
  private void callUntilAllAnswered(ManagedChannel channel) {
    for (int i = 0; i < 5_000 && !(answered.get(0) > 0 && answered.get(1) > 0
        && answered.get(2) > 0); i++) {
      call(channel, 1);
    }
    for (int i = 0; i < 3; i++) {
      assertTrue(answered.getAndSet(i, 0) > 0, "server " + i + " never answered");
    }
  }

  private int[] counts() {
    return new int[] {answered.get(0), answered.get(1), answered.get(2)};
  }

  private int[] call(Channel channel, int calls) {
    for (int i = 0; i < calls; i++) {
      assertEquals("order-" + i, ClientCalls.blockingUnaryCall(channel, CALL,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "order-" + i));
    }
    return counts();
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

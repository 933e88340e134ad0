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
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
  // One I/O thread for the three servers and one for a client's transport, so that the three
  // ways are identical: on a busy 2-core host, a connection on a thread of its own is as fast as
  // the scheduler lets that thread run, and a load-aware policy rightly follows the difference.
  private final NioEventLoopGroup serverThread = new NioEventLoopGroup(1);
  private final NioEventLoopGroup clientThread = new NioEventLoopGroup(1);

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
          .bossEventLoopGroup(serverThread).workerEventLoopGroup(serverThread)
          .channelType(NioServerSocketChannel.class).addService(service).build().start());
    }
  }

  @AfterEach
  void stop() throws InterruptedException {
    channels.forEach(ManagedChannel::shutdownNow);
    servers.forEach(Server::shutdownNow);
    for (ManagedChannel c : channels) {
      c.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (Server s : servers) {
      s.awaitTermination(10, TimeUnit.SECONDS);
    }
    // the I/O threads go once nothing runs on them any more
    serverThread.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    clientThread.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
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

  // What a new user sees in the first seconds over identical servers (P2C peak EWMA).

  @Test
  void fixedListGivesIdenticalServersTheirSharesFromTheFirstCall() throws Exception {
    // OrdersChannels.fixed's target and policy, its transport on one thread
    ManagedChannel channel = open(oneThread("ballast:///" + list("", "", "")));
    call(channel, 1); // the first call: connections opened, cold paths
    assertFair(channel);
  }

  @Test
  void fixedListGivesIdenticalServersTheirSharesFromTheFirstSequentialCall() throws Exception {
    ManagedChannel channel = open(OrdersChannels.fixed(list("", "", "")));
    call(channel, 1);
    assertShares(calls(1, 3000, channel, 0), 0.5, 2, "3,000 calls from one caller");
  }

  @Test
  void registryTargetGivesIdenticalServersTheirSharesFromTheFirstCall() throws Exception {
    EndpointRegistry.global().publish("orders-fair", Endpoint.parseList(list("", "", "")));
    try {
      ManagedChannel channel = open(oneThread("ballast://orders-fair"));
      call(channel, 1);
      assertFair(channel);
    } finally {
      EndpointRegistry.global().publish("orders-fair", List.of());
    }
  }

  @Test
  void aServerPublishedLaterHasItsShareWithinTwoSeconds() throws Exception {
    List<Endpoint> all = Endpoint.parseList(list("", "", ""));
    EndpointRegistry.global().publish("orders-later", all.subList(0, 2));
    try {
      ManagedChannel channel = open(ManagedChannelBuilder.forTarget("ballast://orders-later")
          .defaultLoadBalancingPolicy("p2c_peak_ewma").usePlaintext().build());
      calls(8, 1000, channel, 0);
      EndpointRegistry.global().publish("orders-later", all);
      int[] second = calls(8, 0, channel, TimeUnit.SECONDS.toNanos(2));
      assertShares(second, 0.5, 2, "the second second after the third was published");
    } finally {
      EndpointRegistry.global().publish("orders-later", List.of());
    }
  }

  /** 3,000 calls from 8 callers: 33% +- 5 points each (0.85 to 1.15 times the fair share). */
  private void assertFair(Channel channel) throws Exception {
    assertShares(calls(8, 3000, channel, 0), 0.85, 1.15, "3,000 calls from 8 callers");
  }

  /** A channel to {@code target} with the default policy, its transport on one I/O thread. */
  private ManagedChannel oneThread(String target) {
    return NettyChannelBuilder.forTarget(target).defaultLoadBalancingPolicy("p2c_peak_ewma")
        .eventLoopGroup(clientThread).channelType(NioSocketChannel.class).usePlaintext().build();
  }

  private static void assertShares(int[] counts, double low, double high, String what) {
    System.out.printf("%s: %s%n", what, Arrays.toString(counts)); // in the test's report
    double fair = Arrays.stream(counts).sum() / (double) counts.length;
    for (int c : counts) {
      assertTrue(c >= low * fair && c <= high * fair, what + ": " + Arrays.toString(counts));
    }
  }

  /**
   * Makes {@code total} calls from {@code callers} threads, or, if {@code forNanos} is not 0,
   * calls for that long; returns what each server answered of them, or, for a timed run, of
   * those in its last second.
   */
  private int[] calls(int callers, int total, Channel channel, long forNanos) throws Exception {
    long end = System.nanoTime() + forNanos;
    AtomicInteger left = new AtomicInteger(total);
    int[] before = counts();
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        done.add(pool.submit(() -> {
          while (forNanos != 0 ? System.nanoTime() < end : left.getAndDecrement() > 0) {
            ClientCalls.blockingUnaryCall(channel, CALL,
                CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "order");
          }
          return null;
        }));
      }
      if (forNanos != 0) {
        // the counts at the start of the last second, taken by a timer
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
          long mark = end - TimeUnit.SECONDS.toNanos(1);
          before = timer.schedule(this::counts, mark - System.nanoTime(), TimeUnit.NANOSECONDS)
              .get(60, TimeUnit.SECONDS);
        } finally {
          timer.shutdownNow();
        }
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    int[] after = counts();
    for (int i = 0; i < after.length; i++) {
      after[i] -= before[i];
    }
    return after;
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

package dev.ballast.grpc;

import dev.ballast.grpc.testing.Marshallers;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real gRPC servers on 127.0.0.1 ephemeral ports serving one unary method that answers with the
 * server's index; a server may delay its answer (scheduled, no thread sleeps).
 */
final class TestServers implements AutoCloseable {

  static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("ballast.test.Echo/Call")
      .setRequestMarshaller(Marshallers.TEXT)
      .setResponseMarshaller(Marshallers.TEXT)
      .build();

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<Server> servers = new ArrayList<>();
  private final List<AtomicInteger> calls = new ArrayList<>();
  private final List<AtomicInteger> inFlight = new ArrayList<>();

  /** Starts {@code delaysMs.length} servers; server i answers after delaysMs[i] ms. */
  static TestServers start(long... delaysMs) throws IOException {
    TestServers s = new TestServers();
    for (long d : delaysMs) {
      s.add(d);
    }
    return s;
  }

  /** Starts one more server; returns its index. */
  int add(long delayMs) throws IOException {
    return add(delayMs, null);
  }

  /** Starts one more server whose transports pass through {@code filter} if not null. */
  int add(long delayMs, ServerTransportFilter filter) throws IOException {
    int index = servers.size();
    AtomicInteger count = new AtomicInteger();
    AtomicInteger flying = new AtomicInteger();
    ServerServiceDefinition service = ServerServiceDefinition.builder("ballast.test.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((req, observer) -> {
          count.incrementAndGet();
          flying.incrementAndGet();
          Runnable answer = () -> {
            flying.decrementAndGet();
            observer.onNext(Integer.toString(index));
            observer.onCompleted();
          };
          if (delayMs > 0) {
            scheduler.schedule(answer, delayMs, TimeUnit.MILLISECONDS);
          } else {
            answer.run();
          }
        }))
        .build();
    // The handler never blocks (a delay is scheduled), so it runs on the transport's thread: once
    // a server has terminated, no handler of it is still queued to count a call.
    NettyServerBuilder builder = NettyServerBuilder
        .forAddress(new InetSocketAddress("127.0.0.1", 0))
        .directExecutor()
        .addService(service);
    if (filter != null) {
      builder.addTransportFilter(filter);
    }
    Server server = builder.build().start();
    servers.add(server);
    calls.add(count);
    inFlight.add(flying);
    return index;
  }

  int port(int i) {
    return servers.get(i).getPort();
  }

  Server server(int i) {
    return servers.get(i);
  }

  int calls(int i) {
    return calls.get(i).get();
  }

  int inFlight(int i) {
    return inFlight.get(i).get();
  }

  int[] callCounts() {
    int[] r = new int[calls.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = calls.get(i).get();
    }
    return r;
  }

  void resetCounts() {
    for (AtomicInteger c : calls) {
      c.set(0);
    }
  }

  /** Returns the {@code ballast:///} target listing the servers, with optional per-server suffixes. */
  String target(String... suffixes) {
    StringBuilder sb = new StringBuilder("ballast:///");
    for (int i = 0; i < servers.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append("127.0.0.1:").append(port(i));
      if (i < suffixes.length && !suffixes[i].isEmpty()) {
        sb.append(';').append(suffixes[i]);
      }
    }
    return sb.toString();
  }

  /**
   * Opens a plaintext channel to the servers (the {@link #target} with these suffixes) whose
   * default service config has one load-balancing entry, given as JSON with ' for ".
   */
  io.grpc.ManagedChannel channel(String policy, String policyConfig, String... suffixes)
      throws IOException {
    @SuppressWarnings("unchecked")
    java.util.Map<String, ?> serviceConfig = (java.util.Map<String, ?>)
        io.grpc.internal.JsonParser.parse(("{'loadBalancingConfig': [{'" + policy + "': "
            + policyConfig + "}]}").replace('\'', '"'));
    return io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forTarget(target(suffixes))
        .defaultServiceConfig(serviceConfig).usePlaintext().build();
  }

  /** Calls the echo method; returns the index of the server that answered. */
  static int call(Channel channel, CallOptions options) {
    return Integer.parseInt(ClientCalls.blockingUnaryCall(
        channel, ECHO, options.withDeadlineAfter(20, TimeUnit.SECONDS), "ping"));
  }

  static int call(Channel channel) {
    return call(channel, CallOptions.DEFAULT);
  }

  @Override
  public void close() throws InterruptedException {
    for (Server s : servers) {
      s.shutdownNow();
    }
    for (Server s : servers) {
      s.awaitTermination(10, TimeUnit.SECONDS);
    }
    scheduler.shutdownNow();
  }
}

package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
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
      answered.merge(ClientCalls.blockingUnaryCall(channel, WhoServer.WHO,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS).withWaitForReady(), ""),
          1, Integer::sum);
    }
    assertThat(answered).containsOnlyKeys("a", "b");
  }

  private Server grpcServer(String name) throws Exception {
    Server server = WhoServer.start(name);
    opened.add(() -> server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return server;
  }

  private <T extends AutoCloseable> T open(T closeable) {
    opened.add(closeable);
    return closeable;
  }
}

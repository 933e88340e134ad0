package dev.ballast.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The servers and channels a test opened, closed last first by {@link #close()}. */
final class Opened implements AutoCloseable {

  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** Starts servers answering after the given delays (see {@link TestServers#start}). */
  TestServers servers(long... delaysMs) throws IOException {
    TestServers s = TestServers.start(delaysMs);
    closeables.add(s);
    return s;
  }

  /** Builds a plaintext channel, shut down on close. */
  ManagedChannel channel(NettyChannelBuilder builder) {
    ManagedChannel ch = builder.usePlaintext().build();
    closeables.add(() -> {
      ch.shutdownNow();
      ch.awaitTermination(10, TimeUnit.SECONDS);
    });
    return ch;
  }

  @Override
  public void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }
}

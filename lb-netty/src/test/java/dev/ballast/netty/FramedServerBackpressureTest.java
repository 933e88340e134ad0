package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.Await;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A client that pipelines 300 requests of 1 MiB to an echo server and never reads an answer.
 * The server stops reading while it cannot write, so the direct memory it holds (its own
 * allocator's count of live direct buffers) stays near one write buffer and a frame or two,
 * instead of every answer (298 MiB before); a handler that never answers is given requests up
 * to the server's held-bytes bound only.
 */
class FramedServerBackpressureTest {

  private static final int REQUESTS = 300;
  private static final int PAYLOAD = 1 << 20;

  @Test
  void aClientThatNeverReadsCannotMakeTheServerHoldWhatItSent() throws Exception {
    UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
    try (FramedServer server = FramedServer.builder().allocator(allocator).start()) {
      long peak = pipelineUntilTheServerStops(server, allocator);
      assertThat(server.requests()).as("requests the server took").isLessThan(REQUESTS);
      assertThat(peak).as("server direct memory, bytes").isLessThan(8L * PAYLOAD);
      Await.until(Duration.ofSeconds(10), () -> "direct memory after the client left: "
          + allocator.metric().usedDirectMemory(), () -> allocator.metric().usedDirectMemory() == 0);
    }
  }

  @Test
  void aHandlerThatNeverAnswersIsGivenNoMoreThanTheHeldBound() throws Exception {
    UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
    try (FramedServer server = FramedServer.builder().allocator(allocator)
        .handler(req -> new CompletableFuture<>()).maxHeldBytes(4L * PAYLOAD).start()) {
      long peak = pipelineUntilTheServerStops(server, allocator);
      // 4 MiB held, then one request more (read while within the bound) and at most one more
      // frame already decoded from the same read
      assertThat(server.requests()).as("requests the server took").isBetween(5L, 6L);
      assertThat(peak).as("server direct memory, bytes").isLessThan(4L * PAYLOAD);
    }
  }

  /**
   * Pipelines the requests from another thread until the server stops taking them (no new one
   * for 1 s) or took them all; returns the peak of the server's direct memory meanwhile.
   */
  private static long pipelineUntilTheServerStops(FramedServer server,
      UnpooledByteBufAllocator allocator) throws Exception {
    AtomicInteger written = new AtomicInteger();
    Socket socket = new Socket();
    socket.setReceiveBufferSize(64 * 1024);
    socket.connect(server.address());
    Thread writer = new Thread(() -> pipeline(socket, written), "never-reading-client");
    writer.start();
    long peak = 0;
    try {
      long lastRequests = -1;
      int still = 0;
      for (int polls = 0; polls < 30_000 && still < 200 && server.requests() < REQUESTS;
          polls++) {
        peak = Math.max(peak, allocator.metric().usedDirectMemory());
        long r = server.requests();
        still = r == lastRequests ? still + 1 : 0;
        lastRequests = r;
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
      peak = Math.max(peak, allocator.metric().usedDirectMemory());
      System.out.printf("never-reading client: %d requests written, %d taken by the server,"
          + " peak server direct memory %.1f MiB%n", written.get(), server.requests(),
          peak / 1048576.0);
      return peak;
    } finally {
      socket.close(); // unblocks the writer
      writer.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(writer.isAlive()).isFalse();
    }
  }

  private static void pipeline(Socket socket, AtomicInteger written) {
    byte[] payload = new byte[PAYLOAD];
    ByteBuffer header = ByteBuffer.allocate(Frame.LENGTH_BYTES + Frame.HEADER_BYTES);
    try {
      OutputStream out = socket.getOutputStream();
      for (int i = 0; i < REQUESTS; i++) {
        header.clear();
        header.putInt(Frame.HEADER_BYTES + PAYLOAD).put(Frame.REQUEST).putLong(i);
        out.write(header.array());
        out.write(payload);
        written.incrementAndGet();
      }
    } catch (IOException e) {
      // the test closed the socket while this write was blocked: expected
    }
  }
}

package dev.ballast.soak;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts Netty's {@code LEAK:} reports at the paranoid level: Netty's own through
 * {@link LeakRecorder}, gRPC's shaded Netty's through its log records.
 */
final class Leaks {

  private final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord r) {
      String name = r.getLoggerName() == null ? "" : r.getLoggerName();
      boolean ours = name.startsWith("io.grpc.netty.shaded")
          || (!LeakRecorder.installed && name.startsWith("io.netty"));
      if (ours && r.getMessage() != null && r.getMessage().contains("LEAK:")) {
        logged.add(r.getMessage());
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  private Leaks() {}

  /** Sets both Netties to paranoid leak detection and starts counting. */
  static Leaks watch() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.setLevel(
        io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.Level.PARANOID);
    LeakRecorder.LEAKS.clear();
    Leaks l = new Leaks();
    Logger.getLogger("").addHandler(l.handler);
    return l;
  }

  /**
   * Collects garbage and allocates through both Netties (leaks are reported at an allocation
   * after the collection that found them), then stops counting; returns the reports.
   */
  List<String> finish() throws InterruptedException {
    for (int round = 0; round < 3; round++) {
      System.gc();
      Thread.sleep(200);
      for (int i = 0; i < 64; i++) {
        ByteBufAllocator.DEFAULT.directBuffer(16).release();
        io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator.DEFAULT.directBuffer(16).release();
      }
    }
    Logger.getLogger("").removeHandler(handler);
    List<String> all = new ArrayList<>(LeakRecorder.LEAKS);
    all.addAll(logged);
    return all;
  }
}

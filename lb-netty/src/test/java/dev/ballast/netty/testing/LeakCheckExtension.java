package dev.ballast.netty.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector reported a leak during it. Registered for every
 * test class by JUnit's extension auto-detection (src/test/resources). Before the class it checks
 * that the detector runs in PARANOID mode; after it, it forces garbage collections and allocates
 * buffers (a leak is reported when a buffer is tracked after the leaked one was collected).
 */
public final class LeakCheckExtension implements BeforeAllCallback, AfterAllCallback {

  @Override
  public void beforeAll(ExtensionContext context) {
    if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.PARANOID) {
      throw new IllegalStateException("leak detection level " + ResourceLeakDetector.getLevel()
          + " (expected: PARANOID; set -Dio.netty.leakDetection.level=paranoid)");
    }
    RecordingLeakDetector.drain();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    List<String> leaks = collectLeaks();
    if (!leaks.isEmpty()) {
      throw new AssertionError(leaks.size() + " Netty leak(s) reported in "
          + context.getDisplayName() + ":\n" + String.join("\n", leaks));
    }
  }

  /** Forces collection and leak reporting, then returns and forgets the leaks reported. */
  public static List<String> collectLeaks() {
    if (!RecordingLeakDetector.installed()) {
      ByteBufAllocator.DEFAULT.buffer(1).release();
      if (!RecordingLeakDetector.installed()) {
        throw new IllegalStateException("RecordingLeakDetector not installed (expected: "
            + "-Dio.netty.customResourceLeakDetector=" + RecordingLeakDetector.class.getName()
            + ")");
      }
    }
    List<String> leaks = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      collectGarbage();
      for (ByteBufAllocator a : new ByteBufAllocator[] {ByteBufAllocator.DEFAULT,
          PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT}) {
        for (int j = 0; j < 4; j++) {
          ByteBuf b = a.directBuffer(8);
          b.release();
          b = a.heapBuffer(8);
          b.release();
        }
      }
      leaks.addAll(RecordingLeakDetector.drain());
    }
    return leaks;
  }

  /**
   * A full collection, then waits (at most 1 s) until the JVM's reference handler has enqueued a
   * sentinel cleared by it: on a busy machine the handler runs late, and a leaked buffer's
   * reference enqueued after the detector's poll went unreported.
   */
  private static void collectGarbage() {
    ReferenceQueue<Object> queue = new ReferenceQueue<>();
    WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
    System.gc();
    try {
      queue.remove(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sentinel.clear();
  }
}

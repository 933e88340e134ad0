package dev.ballast.soak;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * High-water marks of the heap's floor (the least heap in use within each window of 20 samples:
 * what the run keeps alive, garbage aside) and of direct memory (the JDK's direct buffers and
 * the two Netties' own counts, whichever is higher).
 */
final class Memory {

  private static final long MIB = 1024 * 1024;
  private long heapFloor;
  private long windowMin = Long.MAX_VALUE;
  private int inWindow;
  private long direct;

  /** Takes one sample. */
  void sample() {
    windowMin = Math.min(windowMin, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage()
        .getUsed());
    if (++inWindow == 20) {
      heapFloor = Math.max(heapFloor, windowMin);
      windowMin = Long.MAX_VALUE;
      inWindow = 0;
    }
    long jdk = 0;
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        jdk = b.getMemoryUsed();
      }
    }
    long netty = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory())
        + Math.max(0, io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent
            .usedDirectMemory());
    direct = Math.max(direct, Math.max(jdk, netty));
  }

  long heapHighWaterMiB() {
    return (heapFloor + MIB - 1) / MIB;
  }

  long directHighWaterMiB() {
    return (direct + MIB - 1) / MIB;
  }
}

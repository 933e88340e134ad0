package dev.ballast.soak;

import io.netty.util.ResourceLeakDetector;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Netty's leak detector that also records each reported leak, for the soak's count; installed
 * by the system property {@code io.netty.customResourceLeakDetector} (set by {@code ./ballast
 * soak} and the benchmarks' tests).
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {

  static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();
  static volatile boolean installed;

  /** Called by Netty's leak-detector factory. */
  public LeakRecorder(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
    installed = true;
  }

  /** Called by Netty's leak-detector factory. */
  public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
    this(resourceType, samplingInterval);
  }

  @Override
  protected boolean needReport() {
    return true;
  }

  @Override
  protected void reportTracedLeak(String resourceType, String records) {
    LEAKS.add("LEAK: " + resourceType + records);
    super.reportTracedLeak(resourceType, records);
  }

  @Override
  protected void reportUntracedLeak(String resourceType) {
    LEAKS.add("LEAK: " + resourceType + " (untraced)");
    super.reportUntracedLeak(resourceType);
  }
}

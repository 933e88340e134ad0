package dev.ballast.netty.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Netty's leak detector, installed for every test JVM by the system property {@code
 * io.netty.customResourceLeakDetector} (see lb-netty's pom), that also records each reported
 * leak so that {@link LeakCheckExtension} can fail the test class.
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {

  private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();
  private static volatile boolean installed;

  /** Called by Netty's leak-detector factory. */
  public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
    installed = true;
  }

  /** Called by Netty's leak-detector factory. */
  public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
    this(resourceType, samplingInterval);
  }

  /** Returns whether Netty created at least one detector of this class. */
  public static boolean installed() {
    return installed;
  }

  /** Returns and forgets the leaks reported so far. */
  public static List<String> drain() {
    List<String> out = new ArrayList<>();
    for (String s; (s = LEAKS.poll()) != null; ) {
      out.add(s);
    }
    return out;
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

package dev.ballast.discovery.xds;

import dev.ballast.core.source.EndpointSource;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Passes a source's pushes on to the client's listener and remembers them, so that a test
 * waits on the event itself (a set pushed, a failure reported) rather than for a while.
 */
final class Recorder implements EndpointSource {

  private final XdsSource source;
  private Map<String, String> last; // guarded by this
  private long sets; // guarded by this
  private long failures; // guarded by this
  private long lastSetNanos; // guarded by this

  Recorder(XdsSource source) {
    this.source = source;
  }

  XdsSource source() {
    return source;
  }

  @Override
  public void start(Listener l) {
    source.start(new Listener() {
      @Override
      public void onEntries(Map<String, String> entries) {
        synchronized (Recorder.this) {
          last = Map.copyOf(entries);
          sets++;
          lastSetNanos = System.nanoTime();
          Recorder.this.notifyAll();
        }
        l.onEntries(entries);
      }

      @Override
      public void onChanges(Map<String, String> upserts, Collection<String> removedKeys) {
        throw new AssertionError("a SotW source pushes whole sets");
      }

      @Override
      public void onFailure(Throwable cause) {
        synchronized (Recorder.this) {
          failures++;
          Recorder.this.notifyAll();
        }
        l.onFailure(cause);
      }
    });
  }

  @Override
  public String name() {
    return source.name();
  }

  @Override
  public void close() {
    source.close();
  }

  synchronized long sets() {
    return sets;
  }

  synchronized long lastSetNanos() {
    return lastSetNanos;
  }

  /** Waits (up to 10 s) until the last set pushed passes the test; returns it. */
  synchronized Map<String, String> awaitSet(Predicate<Map<String, String>> p)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (last == null || !p.test(last)) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no such set within 10 s; last: " + last);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return last;
  }

  /** Waits (up to 10 s) until the source reported more than {@code seen} failures. */
  synchronized void awaitFailure(long seen) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (failures <= seen) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no failure reported within 10 s");
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  synchronized long failures() {
    return failures;
  }
}

package dev.ballast.discovery.xds;

import dev.ballast.core.source.EndpointSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Passes a source's pushes on to the client's listener and remembers them (a change folded
 * into the set before it), so that a test waits on the event itself (a set pushed, a failure
 * reported) rather than for a while.
 */
final class Recorder implements EndpointSource {

  private final XdsSource source;
  private Map<String, String> last; // guarded by this
  private long sets; // whole sets and changes pushed; guarded by this
  private long changes; // of which changes; guarded by this
  private Map<String, String> lastUpserts; // of the last change; guarded by this
  private List<String> lastRemoved; // of the last change; guarded by this
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
        synchronized (Recorder.this) {
          if (last == null) {
            throw new AssertionError("a change before the first set");
          }
          Map<String, String> next = new HashMap<>(last);
          removedKeys.forEach(next::remove);
          next.putAll(upserts);
          last = Map.copyOf(next);
          lastUpserts = Map.copyOf(upserts);
          lastRemoved = List.copyOf(removedKeys);
          sets++;
          changes++;
          lastSetNanos = System.nanoTime();
          Recorder.this.notifyAll();
        }
        l.onChanges(upserts, removedKeys);
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

  synchronized long changes() {
    return changes;
  }

  /** The entries added or changed by the last change pushed. */
  synchronized Map<String, String> lastUpserts() {
    return lastUpserts;
  }

  /** The addresses removed by the last change pushed. */
  synchronized List<String> lastRemoved() {
    return lastRemoved;
  }

  synchronized Map<String, String> last() {
    return last;
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

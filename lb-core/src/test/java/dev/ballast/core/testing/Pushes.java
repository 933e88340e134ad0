package dev.ballast.core.testing;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A sink that keeps every set a feed pushes and wakes the tests waiting for one: a test waits
 * for the push it expects instead of polling the feed (the discovery modules' source tests).
 */
public final class Pushes implements EndpointSink {

  private final List<List<Endpoint>> seen = new ArrayList<>(); // guarded by this

  @Override
  public synchronized void update(List<Endpoint> endpoints) {
    seen.add(List.copyOf(endpoints));
    notifyAll();
  }

  /** Returns how many sets were pushed. */
  public synchronized int count() {
    return seen.size();
  }

  /** Returns the set pushed last; empty before the first push. */
  public synchronized List<Endpoint> last() {
    return seen.isEmpty() ? List.of() : seen.get(seen.size() - 1);
  }

  /**
   * Waits up to 10 s (the server is real, so changes take real time) until the set pushed last
   * satisfies the condition, and returns it.
   */
  public synchronized List<Endpoint> await(Predicate<List<Endpoint>> condition)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.test(last())) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no push met the condition within 10 s; the last: " + last());
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return last();
  }
}

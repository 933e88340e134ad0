package dev.ballast.bench.discovery;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointSink;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The sink, recording when each apply returned and how many endpoints it upserted. */
final class Applies implements EndpointSink {
  final EndpointSink target;
  final Counter count = new Counter();
  volatile long lastAt;
  volatile int lastUpserts;

  Applies(EndpointSink target) {
    this.target = target;
  }

  @Override
  public void update(List<Endpoint> endpoints) {
    target.update(endpoints);
    lastUpserts = endpoints.size();
    lastAt = System.nanoTime();
    count.increment();
  }

  @Override
  public boolean takesDeltas() {
    return true;
  }

  @Override
  public void apply(Collection<Endpoint> upserts, Collection<String> removed) {
    target.apply(upserts, removed);
    lastUpserts = upserts.size();
    lastAt = System.nanoTime();
    count.increment();
  }

  /** A count that a thread can wait on without spinning. */
  static final class Counter {
    private final AtomicLong count = new AtomicLong();

    long get() {
      return count.get();
    }

    synchronized void increment() {
      count.incrementAndGet();
      notifyAll();
    }

    /**
     * Waits until the count is above {@code seen}, without spinning: a waiter that spins takes
     * a core from the threads it measures.
     */
    synchronized void awaitMoreThan(long seen) throws InterruptedException {
      while (count.get() <= seen) {
        wait();
      }
    }
  }
}

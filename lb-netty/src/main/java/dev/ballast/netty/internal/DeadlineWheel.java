package dev.ballast.netty.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Entries of one client with a deadline (its calls in flight, its requests awaiting a late
 * answer, its hedge timers), bucketed by deadline (a hashed timing wheel): adding and removing
 * an entry is one concurrent-set operation (the sets keep their own striped counts, which
 * {@link #size()} sums), and a sweep every tick visits only the buckets whose time has come. It also serves {@code close()}, which must find every
 * entry.
 *
 * @param <C> the entry type
 */
final class DeadlineWheel<C extends DeadlineWheel.Entry> {

  /**
   * What the wheel holds: something with a deadline and a slot for its bucket. An entry is in at
   * most one wheel at a time, and its deadline is set before it is added.
   */
  abstract static class Entry {
    long deadline;
    int bucket;

    Entry(long deadline) {
      this.deadline = deadline;
    }
  }

  private final long tickNanos;
  private final Set<C>[] buckets;
  private long lastTick;

  @SuppressWarnings("unchecked")
  DeadlineWheel(long tickNanos, int buckets, long now) {
    this.tickNanos = tickNanos;
    this.buckets = new Set[buckets];
    for (int i = 0; i < buckets; i++) {
      this.buckets[i] = ConcurrentHashMap.newKeySet();
    }
    this.lastTick = Math.floorDiv(now, tickNanos) - 1;
  }

  void add(C c) {
    int b = (int) Math.floorMod(Math.floorDiv(c.deadline, tickNanos), (long) buckets.length);
    c.bucket = b;
    buckets[b].add(c);
  }

  /** Returns whether the call was still in the wheel. */
  boolean remove(C c) {
    return buckets[c.bucket].remove(c);
  }

  /** Returns how many entries the wheel holds (exact when no add or remove runs meanwhile). */
  int size() {
    int n = 0;
    for (Set<C> b : buckets) {
      n += b.size();
    }
    return n;
  }

  /**
   * Removes and hands to {@code expired} every call whose deadline is at or before {@code now}.
   * Called from one thread at a time.
   */
  void sweep(long now, Consumer<C> expired) {
    long nowTick = Math.floorDiv(now, tickNanos);
    long from = Math.max(lastTick, nowTick - buckets.length);
    List<C> due = null;
    for (long t = from; t <= nowTick; t++) {
      Set<C> bucket = buckets[(int) Math.floorMod(t, (long) buckets.length)];
      if (bucket.isEmpty()) {
        continue;
      }
      for (C c : bucket) {
        if (c.deadline - now <= 0) {
          if (due == null) {
            due = new ArrayList<>();
          }
          due.add(c);
        }
      }
    }
    lastTick = nowTick;
    if (due != null) {
      for (C c : due) {
        if (remove(c)) {
          expired.accept(c);
        }
      }
    }
  }

  /** Returns every call in the wheel. */
  List<C> all() {
    List<C> out = new ArrayList<>();
    for (Set<C> b : buckets) {
      out.addAll(b);
    }
    return out;
  }
}

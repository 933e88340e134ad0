package dev.ballast.soak;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The calls of one side of the soak: started, ended by outcome, and how late they ended. */
final class Tally {

  final String name;
  private final long deadlineNanos;
  private final LongAdder started = new LongAdder();
  private final LongAdder ended = new LongAdder();
  private final LongAdder late = new LongAdder();
  private final AtomicLong worstOverrunNanos = new AtomicLong();
  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

  /** A tally for calls whose deadline is {@code deadlineNanos} after they start. */
  Tally(String name, long deadlineNanos) {
    this.name = name;
    this.deadlineNanos = deadlineNanos;
  }

  /** Counts a call as started; returns its start time. */
  long start() {
    started.increment();
    return System.nanoTime();
  }

  /** Counts the call started at {@code startNanos} as ended with {@code outcome}. */
  void end(long startNanos, String outcome) {
    long overrun = System.nanoTime() - startNanos - deadlineNanos;
    if (overrun > 1_000_000_000L) {
      late.increment();
    }
    worstOverrunNanos.accumulateAndGet(overrun, Math::max);
    outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
    ended.increment();
  }

  long started() {
    return started.sum();
  }

  long ended() {
    return ended.sum();
  }

  long inFlight() {
    return started.sum() - ended.sum();
  }

  /** Calls that ended more than 1 s past their deadline. */
  long late() {
    return late.sum();
  }

  /** The most any call ended past its deadline, in ms (negative: all ended before it). */
  long worstOverrunMillis() {
    return worstOverrunNanos.get() / 1_000_000L;
  }

  /** Ended calls by outcome, sorted by name. */
  Map<String, Long> outcomes() {
    Map<String, Long> m = new TreeMap<>();
    outcomes.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }
}

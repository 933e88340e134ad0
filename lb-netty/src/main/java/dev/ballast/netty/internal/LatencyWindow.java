package dev.ballast.netty.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Recent latencies, for a percentile (hedging's delay): a log-linear histogram of microseconds
 * (exact below 64 us, then 32 buckets per power of two, so a bucket spans at most 1/32 of its
 * values; up to 2^36 us, about 19 hours), in two halves of a window that take turns, so that the
 * percentile covers the last one to two halves. Recording is one atomic increment and allocates
 * nothing; the percentile is computed by {@link #update}, which one thread calls periodically.
 * The layout is HdrHistogram's idea (Gil Tene) at a fixed, small precision.
 */
final class LatencyWindow {

  private static final int SUB_BITS = 5;
  private static final int SUB = 1 << SUB_BITS;
  private static final int MAX_EXPONENT = 36;
  static final int BUCKETS = 2 * SUB + (MAX_EXPONENT - SUB_BITS - 1) * SUB;
  private static final long MIN_COUNT = 100;

  private final double percentile;
  private final long halfNanos;
  private volatile AtomicLongArray current = new AtomicLongArray(BUCKETS);
  private AtomicLongArray previous = new AtomicLongArray(BUCKETS);
  private long halfStart;
  private volatile long valueNanos = -1;

  LatencyWindow(double percentile, long halfNanos, long now) {
    this.percentile = percentile;
    this.halfNanos = halfNanos;
    this.halfStart = now;
  }

  /** Records one latency. */
  void record(long nanos) {
    current.incrementAndGet(index(Math.max(0, nanos / 1000)));
  }

  /** Returns the percentile in nanoseconds as of the last update, or -1 before 100 latencies. */
  long percentileNanos() {
    return valueNanos;
  }

  /** Turns the halves when the current one is over, then computes the percentile. */
  void update(long now) {
    if (now - halfStart >= halfNanos) {
      halfStart = now;
      AtomicLongArray old = current;
      current = new AtomicLongArray(BUCKETS);
      previous = old;
    }
    AtomicLongArray cur = current;
    long total = 0;
    for (int i = 0; i < BUCKETS; i++) {
      total += cur.get(i) + previous.get(i);
    }
    if (total < MIN_COUNT) {
      valueNanos = -1;
      return;
    }
    long rank = (long) Math.ceil(percentile * total);
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += cur.get(i) + previous.get(i);
      if (seen >= rank) {
        valueNanos = upperMicros(i) * 1000;
        return;
      }
    }
  }

  /** Returns the bucket of a value in microseconds. */
  static int index(long micros) {
    if (micros < 2 * SUB) {
      return (int) micros;
    }
    int exponent = Math.min(63 - Long.numberOfLeadingZeros(micros), MAX_EXPONENT - 1);
    if (exponent == MAX_EXPONENT - 1 && micros >= (1L << MAX_EXPONENT)) {
      return BUCKETS - 1;
    }
    int mantissa = (int) (micros >>> (exponent - SUB_BITS)) - SUB;
    return 2 * SUB + (exponent - SUB_BITS - 1) * SUB + mantissa;
  }

  /** Returns the largest value in microseconds that falls in bucket {@code i}. */
  static long upperMicros(int i) {
    if (i < 2 * SUB) {
      return i;
    }
    int exponent = (i - 2 * SUB) / SUB + SUB_BITS + 1;
    long mantissa = SUB + (i - 2 * SUB) % SUB;
    return ((mantissa + 1) << (exponent - SUB_BITS)) - 1;
  }
}

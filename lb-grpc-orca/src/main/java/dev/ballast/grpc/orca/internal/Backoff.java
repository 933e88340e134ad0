package dev.ballast.grpc.orca.internal;

import java.util.random.RandomGenerator;

/**
 * gRPC's connection backoff ("gRPC Connection Backoff Protocol", grpc/doc/connection-backoff.md,
 * as grpc-java's {@code ExponentialBackoffPolicy}): the first wait is 1 s, each next one 1.6 times
 * the last, at most 120 s, each spread by ±20% at random so that many clients do not come back
 * together. Not thread-safe: used in one synchronization context.
 */
final class Backoff {

  static final long INITIAL_NANOS = 1_000_000_000L;
  static final double MULTIPLIER = 1.6;
  static final double JITTER = 0.2;
  static final long MAX_NANOS = 120_000_000_000L;

  private final RandomGenerator random;
  private long next = INITIAL_NANOS;

  Backoff(RandomGenerator random) {
    this.random = random;
  }

  /** Returns the next wait, in nanoseconds. */
  long nextNanos() {
    long current = next;
    next = (long) Math.min(current * MULTIPLIER, MAX_NANOS);
    return current + (long) (JITTER * current * (2 * random.nextDouble() - 1));
  }

  /** Starts over at the first wait. */
  void reset() {
    next = INITIAL_NANOS;
  }
}

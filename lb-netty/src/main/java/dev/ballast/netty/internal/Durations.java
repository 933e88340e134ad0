package dev.ballast.netty.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * Checks of duration arguments, and their conversion to nanoseconds. Durations longer than
 * {@link #FOREVER} (100 years) count as 100 years: {@code Duration.toNanos()} overflows past
 * about 292 years ({@code ChronoUnit.FOREVER} included), and a deadline must stay far from
 * {@code Long.MAX_VALUE} so that {@code now + timeout} cannot wrap.
 */
public final class Durations {

  /** The longest duration the client distinguishes: 100 years; longer ones are clamped to it. */
  public static final Duration FOREVER = Duration.ofDays(36_500);

  private static final long FOREVER_NANOS = FOREVER.toNanos();

  private Durations() {}

  /** Returns {@code d} in nanoseconds, clamped to [0, 100 years]. */
  public static long nanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    return d.compareTo(FOREVER) > 0 ? FOREVER_NANOS : d.toNanos();
  }

  /** Returns {@code d} clamped to at most {@link #FOREVER}. */
  public static Duration clamp(Duration d) {
    return d.compareTo(FOREVER) > 0 ? FOREVER : d;
  }

  /**
   * Returns {@code d} clamped to 100 years.
   *
   * @throws IllegalArgumentException naming {@code name} if {@code d} is zero or negative
   */
  public static Duration positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
    }
    return clamp(d);
  }

  /**
   * Returns {@code d} clamped to 100 years.
   *
   * @throws IllegalArgumentException naming {@code name} if {@code d} is negative
   */
  public static Duration nonNegative(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + ": " + d + " (expected: >= 0)");
    }
    return clamp(d);
  }

  /** Returns {@code a + b}, or {@code Long.MAX_VALUE} when the sum overflows (both >= 0). */
  public static long saturatedAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }
}

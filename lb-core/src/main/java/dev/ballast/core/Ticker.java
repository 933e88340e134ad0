package dev.ballast.core;

/**
 * A source of monotonic nanoseconds, injected so that tests and the simulator control time.
 * The default is {@link #system()}.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current time in nanoseconds; only differences between readings matter. */
  long nanoTime();

  /** Returns the ticker backed by {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}

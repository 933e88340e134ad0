package dev.ballast.netty.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition that another thread makes true, polling at most until a generous
 * timeout (never a fixed sleep: it returns as soon as the condition holds).
 */
public final class Await {

  private Await() {}

  /** Waits until {@code condition} holds, or fails after {@code timeout} with {@code what}. */
  public static void until(Duration timeout, Supplier<String> what, BooleanSupplier condition) {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("not true within " + timeout + ": " + what.get());
      }
      LockSupport.parkNanos(1_000_000);
    }
  }
}

package dev.ballast.soak;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Keeps up to a target number of calls in flight, paced to at most a rate, and counts them in a
 * {@link Tally}.
 */
final class Load {

  /** Starts one call; the call must report its end through {@link Load#ended} exactly once. */
  interface Caller {
    void call(long startNanos);
  }

  final Tally tally;
  private final int target;
  private final Semaphore inFlight;

  Load(Tally tally, int target) {
    this.tally = tally;
    this.target = target;
    this.inFlight = new Semaphore(target);
  }

  /** Reports the end of the call started at {@code startNanos}. */
  void ended(long startNanos, String outcome) {
    tally.end(startNanos, outcome);
    inFlight.release();
  }

  /** Starts calls until {@code untilNanos}, at most {@code perSecond} a second (10 ms slots). */
  void drive(int perSecond, long untilNanos, Caller caller) throws InterruptedException {
    long slotNanos = 10_000_000L;
    int perSlot = Math.max(1, perSecond / 100);
    long slotEnd = System.nanoTime() + slotNanos;
    int inSlot = 0;
    while (System.nanoTime() < untilNanos) {
      if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
        continue;
      }
      if (++inSlot > perSlot) {
        long wait = slotEnd - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        slotEnd = System.nanoTime() + slotNanos;
        inSlot = 1;
      }
      caller.call(tally.start());
    }
  }

  /** Waits, at most {@code timeoutMillis}, until every started call has ended. */
  boolean awaitQuiet(long timeoutMillis) throws InterruptedException {
    if (inFlight.tryAcquire(target, timeoutMillis, TimeUnit.MILLISECONDS)) {
      inFlight.release(target);
      return true;
    }
    return false;
  }
}

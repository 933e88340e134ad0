package dev.ballast.core.health;

import dev.ballast.core.Health;
import dev.ballast.core.Node;

/**
 * One kind of active check (an HTTP path, a framed ping): starts a check of a node and reports
 * its verdict once. A {@link HealthChecker} calls it, never more than its {@code maxInFlight}
 * at once.
 *
 * @param <T> the thing being balanced
 */
@FunctionalInterface
public interface HealthProbe<T> {

  /**
   * Starts one check of {@code node} and returns at once (it runs on the caller's thread, which
   * may be an event loop: it must not block). The check reports through {@code result} exactly
   * once; a report after the checker gave up (timeout, node removed) is ignored.
   *
   * @return what stops the check's work when the checker gives up on it (close its connection),
   *     or null if there is nothing to stop
   */
  Runnable check(Node<T> node, Result result);

  /** Where a check reports; thread-safe. */
  interface Result {
    /** Reports the verdict: {@link Health#UNHEALTHY} is a failed check, any other a pass. */
    void report(Health verdict);
  }
}

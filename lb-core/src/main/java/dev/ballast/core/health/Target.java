package dev.ballast.core.health;

import dev.ballast.core.Health;
import dev.ballast.core.Node;
import java.util.Objects;

/** One node's check state, kept across checks; guarded by its checker's lock. */
final class Target<T> {
  final Node<T> node;
  long key; // when its next check is due, or when its running check times out
  int index = -1; // its place in the heap, -1 when out of it
  long seq; // its push's number, to order equal keys
  Check<T> running;
  boolean waiting;
  Target<T> nextWaiting;
  Target<T> nextStart;
  int failures;
  int passes;
  Health verdict = Health.HEALTHY;

  Target(Node<T> node) {
    this.node = node;
  }

  /** One running check: where its probe reports; the one allocation a check costs the engine. */
  static final class Check<T> implements HealthProbe.Result {
    final HealthChecker<T> checker;
    final Target<T> target;
    volatile Runnable stop;
    boolean started; // guarded by the checker's lock

    Check(HealthChecker<T> checker, Target<T> target) {
      this.checker = checker;
      this.target = target;
    }

    @Override
    public void report(Health verdict) {
      checker.report(this, Objects.requireNonNull(verdict, "verdict"));
    }
  }
}
